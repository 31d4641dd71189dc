import { openBrowser, phonePage } from './browser';
import { assertAccessible } from './accessibility';
import { assertNoEnglish, englishIn, textsOfHtml } from './language';

const page = (lang: string, body: string, title = 'Оплата') =>
  `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${title}</title><style>p{}</style><script>var english = 'yes';</script></head><body>${body}</body></html>`;

/** One Chromium for the checks of rendered pages below. */
let browser: Awaited<ReturnType<typeof openBrowser>>;
beforeAll(async () => {
  browser = await openBrowser();
}, 30_000);
afterAll(() => browser?.close());

describe('assertNoEnglish on HTML as served', () => {
  it('passes a Russian page: allowed names, currency codes, identifiers, another language declared with lang', async () => {
    const html = page(
      'ru',
      `<nav><a lang="en" href="?lang=en">English</a></nav><h1>1 490,90 ₽ · 49,90 USD</h1>
<p>Счёт INV-20261127-AB12CD, оплата через SBP, QR-код, чек в PDF. Пишите на help@shop.example, https://shop.example/back</p>
<input type="hidden" value="Hidden value"><p hidden>Not shown</p><!-- a comment in English --><textarea>typed by the payer</textarea>
<img alt="QR-код СБП" src="x.png"><button type="submit">Оплатить</button>`,
    );
    await expect(assertNoEnglish(html, 'ru')).resolves.toBeUndefined();
  });

  it('fails on English text, spoken attributes, the title and button values, naming each word and where it stands', async () => {
    const html = page(
      'ru',
      `<p>Проверьте номер карты. Amount mismatch: 100</p><img alt="Scan me" src="x.png"><nav aria-label="Languages"></nav>
<input name="expiry" placeholder="MM/YY"><input type="submit" value="Send">`,
      'Pay 1 490,90 ₽',
    );
    const err = await assertNoEnglish(html, 'ru').then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toContain('English on a "ru" page');
    for (const word of ['"Amount"', '"mismatch"', '"Scan"', '"me"', '"Languages"', '"MM"', '"YY"', '"Send"', '"Pay"']) expect(err?.message).toContain(word);
    expect(err?.message).toContain('"Pay" in document title');
    expect(err?.message).toContain('"Scan" in <img alt>');
  });

  it('fails when the page does not declare the language it should be in', async () => {
    await expect(assertNoEnglish(page('en', '<p>Оплата получена</p>'), 'ru')).rejects.toThrow('<html lang="en">, expected "ru"');
  });

  it('fails on a page with nothing to read in its language: blank, or only its title', async () => {
    await expect(assertNoEnglish(page('ru', ''), 'ru')).rejects.toThrow('no text in "ru" on the page');
    await expect(assertNoEnglish(page('kk', '<main><p hidden>Төлем алынды</p><p>49,90 USD</p></main>'), 'kk')).rejects.toThrow('no text in "kk" on the page');
  });

  it("allows a caller's words (the merchant's name) and only those", () => {
    const texts = textsOfHtml(page('kk', '<header>Coffee Lab</header><p>Төлем алынды. Thank you</p>')).texts;
    expect(englishIn(texts, { allow: ['Coffee Lab'] }).map((f) => f.word)).toEqual(['Thank', 'you']);
    // A phrase is allowed where it stands whole (however the spaces wrap), not its words anywhere on the page.
    const described = [{ text: 'Плед Merino\n  Wool · Receipt required', where: 'text' }, { text: 'Receipt: required', where: 'badge' }];
    expect(englishIn(described, { allow: ['Плед Merino Wool', 'Receipt required'] }).map((f) => `${f.word} in ${f.where}`)).toEqual(['Receipt in badge', 'required in badge']);
    // Currency codes are upper-case ISO 4217 only: "all" and "top" are words.
    expect(englishIn([{ text: 'ALL TOP all top', where: 'text' }]).map((f) => f.word)).toEqual(['all', 'top']);
  });
});

describe('assertNoEnglish on a page rendered in Chromium', () => {
  it('checks what shows and is spoken, not what CSS hides; options count when their select does', async () => {
    const { page: p } = await phonePage(browser.context);
    await p.setContent(
      page(
        'kk',
        `<p>Төлем күтілуде</p><p style="display:none">Hidden by CSS</p><span lang="en">English</span>
<select aria-label="Банк"><option>Сбер</option><option>Other bank</option></select>`,
      ),
    );
    await expect(assertNoEnglish(p, 'kk')).rejects.toThrow(/"Other" in <option> text[\s\S]*"bank"/);
    await p.evaluate("document.querySelector('select').style.visibility = 'hidden'");
    await expect(assertNoEnglish(p, 'kk')).resolves.toBeUndefined();
    await p.evaluate("document.querySelector('p').setAttribute('aria-label', 'Awaiting payment')");
    await expect(assertNoEnglish(p, 'kk')).rejects.toThrow('"Awaiting" in <p aria-label>');
    await p.close();
  });
});

describe('assertAccessible', () => {
  it('passes a labelled page and names the rule and element of an unlabelled input, under a strict CSP', async () => {
    const { page: p, problems } = await phonePage(browser.context);
    // The CSP of the hosted pages: axe runs without an inline script, so nothing is refused.
    await p.route('http://pages.test/', (route) =>
      route.fulfill({
        contentType: 'text/html',
        headers: { 'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self'" },
        body: '<!doctype html><html lang="ru"><head><title>Оплата</title></head><body><main><h1>Оплата</h1><label>Номер карты<input name="number"></label></main></body></html>',
      }),
    );
    await p.goto('http://pages.test/');
    await expect(assertAccessible(p)).resolves.toBeUndefined();
    await p.evaluate("document.querySelector('main').insertAdjacentHTML('beforeend', '<input id=bare>')");
    await expect(assertAccessible(p)).rejects.toThrow(/label \(critical\).*#bare/);
    expect(problems).toEqual([]);
    await p.close();
  });
});
