import { randomUUID } from 'node:crypto';
import { createApiKey, registerMerchant, setWebhookUrl } from '@pay/accounts';
import { createAccountsDb } from '@pay/accounts/src/testing';
import { SecretBox, type Owner } from '@pay/auth';
import { createLogger, ManualClock } from '@pay/runtime';
import { createEndpoint, createWebhooksDb, recordEvent, type EndpointInput, type NewEvent } from '@pay/webhooks';
import { attemptsOfDelivery, deliveriesOfEvent, settleEarlierDeliveries } from '@pay/webhooks/test';
import { loadWorkerConfig } from '../src/config';
import { DeliveryWorker, type DeliveryWorkerOptions } from '../src/delivery-worker';
import { WebhookSender, type SenderOptions } from '../src/sender';

/**
 * Delivery against the real test database, with a movable clock and no wake queue: tests
 * drive the loop with `round()` (claim, send, record) instead of waiting for polls.
 */
export function deliveryForSuite() {
  const config = loadWorkerConfig({ ...process.env, ALLOW_PRIVATE_WEBHOOK_URLS: 'true' });
  const logger = createLogger('webhook-worker', config.LOG_LEVEL);
  const accounts = createAccountsDb(config.DATABASE_URL, 3);
  const db = createWebhooksDb(config.DATABASE_URL, 5);
  const secrets = SecretBox.fromEnv(config.SECRETS_KEY);
  const clock = new ManualClock(Date.now());
  const workers: DeliveryWorker[] = [];
  const senders: WebhookSender[] = [];

  // Deliveries left pending by earlier runs (to receivers long closed) would come due now and
  // compete with this file's own in every round.
  beforeAll(() => settleEarlierDeliveries(db));

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    senders.forEach((s) => s.close());
    await Promise.all([accounts.$close(), db.$close()]);
  });

  const ctx = {
    config,
    accounts,
    db,
    secrets,
    clock,
    logger,
    /** A worker (not started: no timers) for this test. */
    worker({ sender: senderOptions, ...opts }: Partial<Omit<DeliveryWorkerOptions, 'sender'>> & { sender?: Partial<SenderOptions> } = {}): DeliveryWorker {
      const sender = new WebhookSender({ allowPrivate: true, timeoutMs: 2000, ...senderOptions });
      senders.push(sender);
      const w = new DeliveryWorker({ db, accounts: db, secrets, clock, logger, sender, wakes: null, concurrency: 50, perEndpoint: 10, pollIntervalMs: 1000, ttlMs: 10_000, ...opts });
      workers.push(w);
      return w;
    },
    /** Rounds of the loop until nothing more is due, everything claimed sent and recorded. Returns how many were claimed. */
    async round(w: DeliveryWorker): Promise<number> {
      let total = 0;
      for (let n = -1; n !== 0; ) {
        n = await w.runOnce();
        await w.drain();
        total += n;
      }
      return total;
    },
    async merchant(opts: { webhookUrl?: string } = {}): Promise<{ merchantId: string; hmacSecret: string; test: Owner; live: Owner }> {
      const r = await registerMerchant(accounts, secrets, { companyName: 'Acme', email: `m-${randomUUID()}@example.test`, address: '1 Main St' });
      await createApiKey(accounts, r.merchant.id, { name: 'tests', isTestKey: true });
      if (opts.webhookUrl) await setWebhookUrl(accounts, r.merchant.id, opts.webhookUrl);
      return { merchantId: r.merchant.id, hmacSecret: r.hmacSecret, test: { merchantId: r.merchant.id, isTest: true }, live: { merchantId: r.merchant.id, isTest: false } };
    },
    endpoint(owner: Owner, input: EndpointInput) {
      return createEndpoint(db, secrets, owner, input, clock.now());
    },
    event(owner: Owner, type: string, object: Record<string, unknown>, extra: Partial<NewEvent> = {}) {
      return recordEvent(db, { source: 'invoicing', owner, type, object, at: clock.now().getTime(), ...extra });
    },
    deliveriesOfEvent(eventId: string) {
      return deliveriesOfEvent(db, eventId);
    },
    attemptsOfDelivery(deliveryId: string) {
      return attemptsOfDelivery(db, deliveryId);
    },
  };
  return ctx;
}

export type DeliveryTestContext = ReturnType<typeof deliveryForSuite>;
