import request from 'supertest';
import { Queues } from '@pay/queue';
import { consoleSignIn, invoicingAppForSuite, newMerchant } from '../../../test/test-support';
import { QUEUES_PATH } from './operators';

const ctx = invoicingAppForSuite();

async function signedIn() {
  const m = await newMerchant(ctx.deps);
  const { agent, csrf } = await consoleSignIn(ctx.app, m.apiKey);
  return { m, agent, csrf };
}

describe('the queue dashboard (Bull Board) at /console/queues', () => {
  it('sends a visitor without a session to sign in', async () => {
    const res = await request(ctx.app).get(QUEUES_PATH);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/console/sign-in');
    expect((await request(ctx.app).get(`${QUEUES_PATH}/api/queues`)).status).toBe(303);
  });

  it('does not exist for a merchant who is not an operator, and has no link in the nav', async () => {
    const { agent } = await signedIn();
    for (const path of [QUEUES_PATH, `${QUEUES_PATH}/api/queues`]) {
      const res = await agent.get(path);
      expect(res.status).toBe(404);
      expect(res.text).toContain('is not a console page');
    }
    expect((await agent.get('/console/webhooks')).text).not.toContain('data-testid="nav-queues"');
  });

  it("shows an operator every queue of the catalogue, read-only, under a CSP of its own", async () => {
    const { m, agent, csrf } = await signedIn();
    ctx.deps.config.CONSOLE_OPERATORS.push(m.merchantId);
    try {
      expect((await agent.get('/console/webhooks')).text).toContain(`href="${QUEUES_PATH}" data-testid="nav-queues"`);
      const page = await agent.get(QUEUES_PATH);
      expect(page.status).toBe(200);
      expect(page.text).toContain('id="__UI_CONFIG__"');
      expect(page.headers['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline';/);
      expect(page.headers['cache-control']).toBe('no-store');

      const api = await agent.get(`${QUEUES_PATH}/api/queues`);
      expect(api.status).toBe(200);
      const queues = api.body.queues as { name: string; readOnlyMode: boolean }[];
      expect(queues.map((q) => q.name).sort()).toEqual(Object.values(Queues).map((q) => q.name).sort());
      expect(queues.every((q) => q.readOnlyMode)).toBe(true);

      // No change goes through Bull Board's own API: without the session's CSRF token it is refused
      // like every console change, and with it, it is still refused (read-only).
      const name = Queues.kycChecks.name;
      for (const [method, path] of [
        ['put', `${QUEUES_PATH}/api/queues/${name}/retry/failed`],
        ['delete', `${QUEUES_PATH}/api/queues/${name}/clean/completed`],
        ['post', `${QUEUES_PATH}/api/queues/${name}/add`],
      ] as const) {
        expect((await agent[method](path).set('X-CSRF-Token', 'forged')).status).toBe(403);
        const res = await agent[method](path).set('X-CSRF-Token', csrf);
        expect(res.status).toBe(405);
        expect(res.headers.allow).toBe('GET, HEAD');
      }
    } finally {
      ctx.deps.config.CONSOLE_OPERATORS.splice(ctx.deps.config.CONSOLE_OPERATORS.indexOf(m.merchantId), 1);
    }
  });
});
