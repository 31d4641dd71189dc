import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { assertAccessible, assertNoEnglish, type CyrillicLanguage } from '@pay/testing';

/**
 * The page at `url` in Russian and in Kazakh (`?lang=`, as the page's switch asks): each must
 * be wholly in its language (assertNoEnglish; `allow` names the merchant's own words on it)
 * and pass axe-core with no violation, on the 390 px phone `page` is. Screenshots go to
 * `shots` as `<name>-<lang>.png` when given.
 */
export async function assertPageInLanguages(page: Page, url: string, o: { allow?: string[]; shots?: { dir: string; name: string } } = {}): Promise<void> {
  for (const lang of ['ru', 'kk'] as const satisfies readonly CyrillicLanguage[]) {
    const u = new URL(url);
    u.searchParams.set('lang', lang);
    await page.goto(u.toString());
    await assertNoEnglish(page, lang, { allow: o.allow });
    await assertAccessible(page);
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    if (o.shots) await page.screenshot({ path: join(o.shots.dir, `${o.shots.name}-${lang}.png`), fullPage: true });
  }
}
