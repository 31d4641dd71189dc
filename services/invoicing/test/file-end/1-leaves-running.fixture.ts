import { writeFileSync } from 'node:fs';
import { spawnService } from '@pay/testing';
import { startInvoicingApp } from '../test-support';

// What a beforeAll that timed out leaves behind: an app with its background (relay, receipt
// worker) and a service process with its own, neither of which the file ever stops.
it('starts an app with its background and a service process, and stops neither', async () => {
  const [app, svc] = await Promise.all([startInvoicingApp({ background: true }), spawnService('invoicing', { RUN_WORKERS: 'true' })]);
  writeFileSync(process.env.FILE_END_PID_FILE!, String(svc.child.pid));
  expect(app.background).not.toBeNull();
}, 120_000);
