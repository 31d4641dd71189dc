import express from 'express';
import request from 'supertest';
import { Type } from '@sinclair/typebox';
import { ConfigError, every, metricsRegistry } from '@pay/runtime';
import { startInvoicingApp } from '../../test/test-support';
import { loadConfigWith } from '../config';
import { loadInvoicingConfig } from '../load-config';
import type { Acquirer } from './acquirer';
import type { PaymentProvider } from './provider';
import { ACQUIRERS, acquirerBackground, mountAcquirers, paymentProvidersFrom, settleDueAcquirerPayments } from './registry';
import { SandboxProvider } from './sandbox';
import type { AcquirerSettings } from './settings';

/**
 * "A new acquirer is one folder and one line in ACQUIRERS": a second acquirer, declared here
 * as its folder would declare it, is taken up by everything that asks the registry (the
 * configuration, the providers, the app's routes, the background and the expiry) without any
 * of them naming it. The registry's functions take the list (ACQUIRERS by default), so this
 * test adds its acquirer to the real ones.
 */

class SecondProvider implements PaymentProvider {
  readonly name = 'second';
  readonly cardEntry = 'acquirer-page';
  constructor(
    readonly shop: string,
    readonly mode: 'test' | 'live',
  ) {}
  createOrder(): never {
    throw new Error('not used here');
  }
  chargeCard(): never {
    throw new Error('not used here');
  }
  voidCharge(): never {
    throw new Error('not used here');
  }
  refund(): never {
    throw new Error('not used here');
  }
  cancelOrder(): never {
    throw new Error('not used here');
  }
}

const secondSettings: AcquirerSettings = {
  name: 'second',
  properties: {
    SECOND_SHOP: Type.Optional(Type.String({ minLength: 1 })),
    SECOND_TEST_SHOP: Type.Optional(Type.String({ minLength: 1 })),
    SECOND_RECONCILE_AFTER_MS: Type.Integer({ minimum: 0, maximum: 86_400_000, default: 5000 }),
  },
  problems(config, modes) {
    return [...(modes.live ? ['SECOND_SHOP'] : []), ...(modes.test ? ['SECOND_TEST_SHOP'] : [])].filter((n) => !config[n]).map((n) => `${n} must be set: the second acquirer is configured`);
  },
};

type SecondConfig = { SECOND_SHOP: string; SECOND_TEST_SHOP: string; SECOND_RECONCILE_AFTER_MS: number };
const shops = (providers: SecondProvider[]) => providers.map((p) => p.shop);

/** What the service asked of the second acquirer, in order. */
const asked: unknown[][] = [];

const second: Acquirer<SecondProvider> = {
  settings: secondSettings,
  provider(config, mode) {
    const c = config as unknown as SecondConfig;
    return new SecondProvider(mode === 'test' ? c.SECOND_TEST_SHOP : c.SECOND_SHOP, mode);
  },
  owns: (p): p is SecondProvider => p instanceof SecondProvider,
  mount(app, _deps, providers) {
    asked.push(['mount', shops(providers)]);
    app.post('/second/notifications', (_req, res) => {
      res.type('text/plain').send(`OK ${shops(providers).join(',')}`);
    });
  },
  loops(deps, providers) {
    asked.push(['loops', shops(providers)]);
    return [every('second-reconciler', 3_600_000, async () => void asked.push(['reconcile', shops(providers)]), deps.logger)];
  },
  async settleDue(_deps, provider, invoiceIds) {
    asked.push(['settleDue', provider.shop, invoiceIds]);
    if (provider.mode === 'test') throw new Error('the test shop does not answer');
    return invoiceIds.length;
  },
  backlogAfterMs: (config) => (config as unknown as SecondConfig).SECOND_RECONCILE_AFTER_MS,
};

const WITH_SECOND = [...ACQUIRERS, second];
const settings = WITH_SECOND.map((a) => a.settings);
const both = { LIVE_PAYMENT_PROVIDER: 'second', TEST_PAYMENT_PROVIDER: 'second', SECOND_SHOP: 'live-shop', SECOND_TEST_SHOP: 'test-shop' };

describe('a second acquirer in the registry', () => {
  it('is a name LIVE_PAYMENT_PROVIDER and TEST_PAYMENT_PROVIDER take, with its variables checked at start', () => {
    // The registered list does not know it: the same variables are refused.
    expect(() => loadInvoicingConfig({ ...process.env, LIVE_PAYMENT_PROVIDER: 'second' })).toThrow(/LIVE_PAYMENT_PROVIDER/);

    const live = loadConfigWith(settings, { ...process.env, LIVE_PAYMENT_PROVIDER: 'second', SECOND_SHOP: 'live-shop' }) as ReturnType<typeof loadConfigWith> & SecondConfig;
    expect([live.LIVE_PAYMENT_PROVIDER, live.TEST_PAYMENT_PROVIDER, live.SECOND_SHOP, live.SECOND_RECONCILE_AFTER_MS]).toEqual(['second', 'sandbox', 'live-shop', 5000]);
    expect(loadConfigWith(settings, { ...process.env, ...both }).TEST_PAYMENT_PROVIDER).toBe('second');
    // T-Bank stays a name beside it.
    expect(loadConfigWith(settings, { ...process.env, LIVE_PAYMENT_PROVIDER: 'tbank', TBANK_TERMINAL_KEY: 'T', TBANK_PASSWORD: 'p' }).LIVE_PAYMENT_PROVIDER).toBe('tbank');

    // Its problems, for each mode that names it; its variables validated like the service's own.
    const refused = (env: Record<string, string>) => {
      try {
        loadConfigWith(settings, { ...process.env, ...env });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused({ LIVE_PAYMENT_PROVIDER: 'second' })).toMatch(/SECOND_SHOP must be set/);
    expect(refused({ TEST_PAYMENT_PROVIDER: 'second' })).toMatch(/SECOND_TEST_SHOP must be set/);
    expect(refused({ TEST_PAYMENT_PROVIDER: 'second' })).not.toMatch(/SECOND_SHOP must be set/);
    expect(refused({ SECOND_RECONCILE_AFTER_MS: 'soon' })).toMatch(/SECOND_RECONCILE_AFTER_MS/);
    expect(refused({ LIVE_PAYMENT_PROVIDER: 'third' })).toMatch(/LIVE_PAYMENT_PROVIDER/);
  });

  it('gives the providers, and has its routes mounted, its loops run, its backlog reported and its due payments settled', async () => {
    const ctx = await startInvoicingApp();
    const config = loadConfigWith(settings, { ...process.env, ...both, SECOND_RECONCILE_AFTER_MS: '0' });

    // The registered list alone: the sandbox, and no live provider.
    const registered = paymentProvidersFrom(config, ctx.deps);
    expect([registered.test instanceof SandboxProvider, registered.live]).toEqual([true, null]);

    const providers = paymentProvidersFrom(config, ctx.deps, WITH_SECOND);
    expect([providers.test, providers.live]).toEqual([new SecondProvider('test-shop', 'test'), new SecondProvider('live-shop', 'live')]);
    const deps = { ...ctx.deps, config, providers };

    const app = express();
    mountAcquirers(app, deps, WITH_SECOND);
    const res = await request(app).post('/second/notifications').send({});
    expect([res.status, res.text]).toEqual([200, 'OK test-shop,live-shop']);

    const background = acquirerBackground(deps, WITH_SECOND);
    try {
      // T-Bank has no provider here, so no loop of its own.
      expect(background.loops).toHaveLength(1);
      await background.loops[0]!.runNow();
      // Its terminals' backlog on /metrics, read from the database (nothing waits: 0).
      const metrics = await metricsRegistry.metrics();
      for (const mode of ['test', 'live']) expect(metrics).toContain(`invoicing_acquirer_payments_open{provider="second",mode="${mode}"} 0`);
    } finally {
      background.unwatch();
      await Promise.all(background.loops.map((l) => l.stop()));
    }

    // Before expiry: each of its providers is asked; the one that fails is skipped, not fatal.
    await settleDueAcquirerPayments(deps, [], WITH_SECOND);
    await settleDueAcquirerPayments(deps, ['inv-1', 'inv-2'], WITH_SECOND);
    expect(asked).toEqual([
      ['mount', ['test-shop', 'live-shop']],
      ['loops', ['test-shop', 'live-shop']],
      ['reconcile', ['test-shop', 'live-shop']],
      ['settleDue', 'test-shop', ['inv-1', 'inv-2']],
      ['settleDue', 'live-shop', ['inv-1', 'inv-2']],
    ]);
    await ctx.close();
  });
});
