import request from 'supertest';
import { PAGE_CSP } from '@pay/http';
import { ManualClock } from '@pay/runtime';
import { money } from '../../shared/money';
import { registerMerchant, cryptoAppForSuite, testKeyFor } from '../../../test/test-support';
import { pageLanguage } from './i18n';
import { pageFacts, statusBody } from './presenter';

const NOW = new Date('2026-11-27T12:00:00.000Z');
const later = (ms: number) => new Date(NOW.getTime() + ms);
const facts = (status: 'Pending' | 'PartiallyPaid' | 'Paid' | 'Underpaid' | 'Expired', amountReceived: string, expiresAt: Date, awaiting = '0') =>
  pageFacts({ status, amount: '10', amountReceived, expiresAt }, NOW, money(awaiting));

describe('what the page says of an invoice (pageFacts)', () => {
  it('open: waiting, or partly paid with what is still due (less what is on its way)', () => {
    expect(facts('Pending', '0', later(60_000))).toMatchObject({ state: 'waiting', open: true, final: false, remainingMs: 60_000 });
    const partial = facts('PartiallyPaid', '4.25', later(1000), '2');
    expect(partial).toMatchObject({ state: 'partial', open: true, final: false });
    expect([partial.received, partial.awaiting, partial.due].map(String)).toEqual(['4.25', '2', '3.75']);
    // More on its way than due: nothing more is asked.
    expect(facts('Pending', '0', later(1000), '12').due.toString()).toBe('0');
  });

  it('past its expiry before the tracker settles it: expired (or underpaid when something came), nothing due', () => {
    expect(facts('Pending', '0', later(0))).toMatchObject({ state: 'expired', open: false, final: true });
    expect(facts('PartiallyPaid', '3', later(-1))).toMatchObject({ state: 'underpaid', open: false, final: true });
    expect(facts('Pending', '0', later(-1)).due.toString()).toBe('0');
  });

  it('expired while a transfer sent in time awaits its confirmations: not final, the poll keeps watching', () => {
    expect(facts('Pending', '0', later(-1), '10')).toMatchObject({ state: 'expired', open: false, final: false });
  });

  it('settled statuses are final, whatever the clock says', () => {
    expect(facts('Paid', '10', later(60_000), '5')).toMatchObject({ state: 'paid', open: false, final: true });
    expect(facts('Paid', '10', later(60_000), '5').awaiting.toString()).toBe('0');
    expect(facts('Underpaid', '3', later(-1))).toMatchObject({ state: 'underpaid', final: true });
    expect(facts('Expired', '0', later(-1))).toMatchObject({ state: 'expired', final: true });
  });

  it('the poll’s version changes with anything the page shows, and not otherwise', () => {
    const v = (f: ReturnType<typeof facts>) => statusBody(f, '').version;
    expect(v(facts('Pending', '0', later(60_000)))).toBe(v(facts('Pending', '0', later(30_000))));
    expect(v(facts('Pending', '0', later(60_000)))).not.toBe(v(facts('Pending', '0', later(60_000), '1')));
    expect(v(facts('PartiallyPaid', '1', later(60_000)))).not.toBe(v(facts('PartiallyPaid', '2', later(60_000))));
  });
});

describe('the page language', () => {
  it('?lang= first (kz is Kazakh), then Accept-Language by q and order, then the fallback', () => {
    // The negotiation itself (case, regions, q values) is @pay/http's, tested in its languages.test.ts.
    expect(pageLanguage({ query: { lang: 'kz' }, headers: { 'accept-language': 'en' } })).toEqual({ language: 'kk', chosen: true });
    expect(pageLanguage({ query: {}, headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5,kk;q=0.7' } })).toEqual({ language: 'kk', chosen: false });
    expect(pageLanguage({ query: {}, headers: { 'accept-language': 'de' } })).toEqual({ language: 'ru', chosen: false });
    expect(pageLanguage({ query: { lang: 'en' }, headers: { 'accept-language': 'ru' } })).toEqual({ language: 'en', chosen: true });
    expect(pageLanguage({ query: {}, headers: { 'accept-language': 'ru' } })).toEqual({ language: 'ru', chosen: false });
    expect(pageLanguage({ query: { lang: 'xx' }, headers: { 'accept-language': 'de' } }, 'kk')).toEqual({ language: 'kk', chosen: false });
  });
});

describe('the page and its poll under the pages’ rate limit (per client address)', () => {
  const ctx = cryptoAppForSuite({ clock: new ManualClock(NOW.getTime()), env: { RATE_LIMIT_PAGES_PER_MINUTE: '3' } });

  it('over the limit: the poll gets JSON 429 with Retry-After, the page an HTML page in the payer language', async () => {
    const m = await testKeyFor(ctx.app, await registerMerchant(ctx.app));
    const inv = (await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount: 1, currency: 'USDT_TRC20' })).body.data;
    // Each test's requests come from one address; the window is a wall-clock minute in Redis, so use it up.
    let poll = await request(ctx.app).get(`/pay/${inv.id}/status`);
    for (let i = 0; i < 5 && poll.status !== 429; i++) poll = await request(ctx.app).get(`/pay/${inv.id}/status`);
    expect(poll.status).toBe(429);
    expect(Number(poll.headers['retry-after'])).toBeGreaterThan(0);
    expect(poll.body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    const page = await request(ctx.app).get(`/pay/${inv.id}`).set('Accept-Language', 'ru');
    expect(page.status).toBe(429);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect([page.headers['content-security-policy'], page.headers['cache-control'], page.headers['referrer-policy']]).toEqual([PAGE_CSP, 'no-store', 'same-origin']);
    expect(page.text).toContain('Слишком много запросов');
  });
});
