import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

/** axe-core's engine, read once: evaluated into the page over the DevTools protocol, which the pages' CSP does not govern (no inline script is added, so a CSP violation still shows). */
let axeSource: string | undefined;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  /** The offending elements, as axe's CSS selectors. */
  targets: string[];
}

/** axe-core's violations on the page as it is now (WCAG 2.x A and AA and best practices: axe's defaults). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axeSource);
  // Source text, not a function: the workspace's TypeScript has no DOM types.
  return page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
    id: v.id, impact: v.impact ?? null, help: v.help, targets: v.nodes.map((n) => n.target.map(String).join(' ')),
  })))`);
}

/** Fails, naming each rule and element, when axe-core finds any violation on the page. */
export async function assertAccessible(page: Page): Promise<void> {
  const violations = await axeViolations(page);
  if (violations.length > 0) {
    throw new Error(`axe-core violations on ${page.url()}:\n  ${violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.targets.join(', ')}`).join('\n  ')}`);
  }
}
