import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { eventually } from './eventually';
import { freePort } from './throwaway';

/** An e-mail as maildev's REST API gives it (`GET /email/:id`): headers parsed, the name of each address decoded. */
export interface MaildevEmail {
  id: string;
  subject: string;
  from: { address: string; name: string }[];
  to: { address: string; name: string }[];
  replyTo?: { address: string; name: string }[];
  headers: Record<string, string>;
  text?: string;
  html?: string;
}

/** Every e-mail a maildev at `url` (its web inbox) has received, each as `GET /email/:id` gives it. */
export async function maildevEmails(url: string): Promise<MaildevEmail[]> {
  const res = await fetch(`${url}/email`);
  expectOk(res.status);
  const list = (await res.json()) as { id: string }[];
  return Promise.all(list.map(async (m) => (await (await fetch(`${url}/email/${m.id}`)).json()) as MaildevEmail));
}

/** The workspace's own maildev (the dev mailbox scripts/stack.sh runs), so tests read e-mails as a person's inbox would. */
const MAILDEV_BIN = resolve(__dirname, '../../../node_modules/.bin/maildev');

/**
 * maildev (SMTP in, REST API and web inbox out) on free loopback ports, its mail in a folder of
 * its own: tests send through it with the service's real mailer and read what arrived through its
 * API (`emails()`), parsed by maildev, not by the test.
 */
export async function startMaildev() {
  const [smtpPort, webPort] = [await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), 'pay-maildev-'));
  const proc = spawn(MAILDEV_BIN, ['--ip', '127.0.0.1', '--smtp', String(smtpPort), '--web-ip', '127.0.0.1', '--web', String(webPort), '--mail-directory', dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = `http://127.0.0.1:${webPort}`;
  await eventually(async () => {
    if (proc.exitCode !== null) throw new Error(`maildev exited with ${proc.exitCode}: ${stderr}`);
    expectOk((await fetch(`${url}/email`)).status);
  }, 30_000, 100);
  return {
    smtpPort,
    url,
    /** Every e-mail received so far, each as `GET /email/:id` gives it. */
    emails: () => maildevEmails(url),
    async close() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function expectOk(status: number): void {
  if (status !== 200) throw new Error(`maildev answered ${status}`);
}
