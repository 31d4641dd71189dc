import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's chromium; playwright-core never downloads a browser of its own. */
const EXECUTABLE = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * A headless Chromium for page tests. The flags keep it off the network it would otherwise
 * call at start (updates, sync), which this machine refuses.
 */
export async function openBrowser(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'pay-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: EXECUTABLE,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
