import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { merchantsWithWebhookUrl, merchantWebhookTargets, webhookUrlFor } from '@pay/accounts';
import type { SecretBox } from '@pay/auth';
import { type Queries } from '@pay/db';
import { backoffDelay, type Clock, type Logger } from '@pay/runtime';
import { wakeWebhookWorker, webhookDisabledEmail, writeOutbox } from '@pay/queue';
import {
  afterOutcome,
  announceDisabledEndpoints,
  retryAfterMsOf,
  claimDue,
  dispatchEvents,
  endpointTargets,
  heartbeat,
  recordOutcomes,
  releaseDeliveries,
  retireWorker,
  type ClaimedDelivery,
  type EndpointTarget,
  type Outcome,
  type Transactions,
} from '@pay/webhooks';
import { EndpointPool } from './pool';
import type { WebhookSender } from './sender';
import type { AttemptOutcome, DeliveryMetrics } from './metrics';

/** Opened secrets kept (by their sealed text, which a rotation changes), so a send does not decrypt again. */
const OPENED_SECRETS = 1000;
/** Outcomes are written together: at most this many per statement, or after this long. */
const FLUSH_BATCH = 500;
const FLUSH_DELAY_MS = 5;
/** Deliveries held in memory at most, waiting ones included. */
const MAX_HELD = 5000;
/** Deliveries one endpoint may have waiting in this process: enough to keep its slots busy between claims. */
const QUEUE_PER_SLOT = 10;
/** Events turned into deliveries per transaction. */
const DISPATCH_BATCH = 1000;
/** Reads of endpoints' (and merchants') targets running at once: see readBatched. */
const READS_IN_FLIGHT = 4;
/** How often disabled webhooks not yet announced are looked for (one whose announcement a crash lost). */
const ANNOUNCE_SWEEP_MS = 10_000;

export interface DeliveryWorkerOptions {
  db: Transactions;
  /** Reads merchants' webhook URLs and secrets (the accounts package's queries). */
  accounts: Queries;
  secrets: SecretBox;
  clock: Clock;
  logger: Logger;
  sender: WebhookSender;
  /** Where retry wake-ups are scheduled; null runs on polling alone. */
  wakes: Queue | null;
  metrics?: DeliveryMetrics;
  /** Requests in flight, all endpoints together. */
  concurrency: number;
  /** Requests in flight to one endpoint. */
  perEndpoint: number;
  pollIntervalMs: number;
  /** How long this worker's claims outlive its last heartbeat. */
  ttlMs: number;
}

interface Target {
  url: string | null;
  secret: string | null;
  /** A rotated secret still in its overlap: it signs too. */
  previousSecret?: string | null;
  disabled: boolean;
}

interface Held {
  endpointId: string;
  d: ClaimedDelivery;
}

type MerchantRow = { webhookUrl: string | null; testWebhookUrl: string | null; hmacSecretEnc: string };

/**
 * The delivery loop of one worker process. Postgres holds every delivery; this process:
 * - turns new events into deliveries (dispatchEvents) and claims what is due (claimDue),
 *   on every poll and whenever a wake job arrives;
 * - sends them through an EndpointPool (per-endpoint and global concurrency);
 * - records attempts in batches and schedules a wake for each retry.
 * Claims hold only while this process beats (heartbeat), so a worker killed mid-send loses
 * nothing: its deliveries are claimed again once its heartbeat is older than `ttlMs`.
 */
export class DeliveryWorker {
  readonly id = randomUUID();
  private readonly pool: EndpointPool<Held>;
  /** Deliveries claimed and not yet recorded, so a claim never sends one twice in this process. */
  private readonly held = new Set<string>();
  private outcomes: Outcome[] = [];
  /** Deliveries given back unsent (giveBack) and not yet released, with the first one's cause. */
  private toGiveBack: { ids: string[]; cause: string | null } = { ids: [], cause: null };
  /** Their release, while it runs. */
  private givingBack: Promise<void> | null = null;
  private flushing: Promise<void> | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  private flushFailures = 0;
  private pumping: Promise<void> | null = null;
  /** Deliveries written per event dispatched, as last seen: how many events fill a round's room. */
  private fanout = 1;
  /** When this worker last claimed (performance.now()), and whether that claim was full (more may be due). */
  private claimedAt = -Infinity;
  private claimFull = false;
  private again = false;
  private backlog = false;
  private failures = 0;
  private stopped = true;
  private timers: NodeJS.Timeout[] = [];
  private readonly capacity: number;
  private readonly loadEndpoints = readBatched((ids: string[]) => endpointTargets(this.o.db, ids));
  private readonly loadMerchants = readBatched((ids: string[]) => merchantWebhookTargets(this.o.accounts, ids));
  private readonly opened = new Map<string, string>();

  constructor(private readonly o: DeliveryWorkerOptions) {
    this.capacity = o.concurrency * 2;
    this.pool = new EndpointPool<Held>({
      perEndpoint: o.perEndpoint,
      global: o.concurrency,
      queuePerEndpoint: o.perEndpoint * QUEUE_PER_SLOT,
      run: (h) => this.send(h),
      onError: (err, h) => o.logger.error({ err, deliveryId: h.d.id }, 'delivery send failed unexpectedly'),
    });
  }

  /** Deliveries held in this process (claimed, not yet recorded). */
  get inProcess(): number {
    return this.held.size;
  }

  async start(): Promise<void> {
    this.stopped = false;
    await heartbeat(this.o.db, this.id);
    const beat = setInterval(() => {
      heartbeat(this.o.db, this.id).catch((err) => this.o.logger.warn({ err: { message: (err as Error).message } }, 'webhook worker heartbeat failed'));
    }, Math.max(100, Math.floor(this.o.ttlMs / 3)));
    const poll = setInterval(() => this.kick(), this.o.pollIntervalMs);
    const sweep = setInterval(() => void this.announceDisabled(), ANNOUNCE_SWEEP_MS);
    for (const t of [beat, poll, sweep]) t.unref();
    this.timers.push(beat, poll, sweep);
    void this.announceDisabled();
    this.kick();
  }

  /** Looks for work now (a wake job arrived, a poll came round, or room was freed). */
  kick(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pumpLoop().finally(() => {
      this.pumping = null;
    });
  }

  private async pumpLoop(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.runOnce();
        this.failures = 0;
      } catch (err) {
        this.failures++;
        this.o.logger.error({ err: { message: (err as Error).message }, failures: this.failures }, 'webhook worker could not claim work; backing off');
        await new Promise((r) => setTimeout(r, backoffDelay(this.o.pollIntervalMs, this.failures)).unref());
        break;
      }
    } while (this.again && !this.stopped);
  }

  /**
   * One round: new events become deliveries, written already leased to this worker as far as
   * it has room, then due deliveries (retries, resends, what others gave back) are claimed
   * into the rest. Returns how many were taken.
   *
   * While new events fill the room, the claim waits, but never longer than a poll interval:
   * then half the room is kept for it, so due retries are not starved by a stream of events.
   */
  async runOnce(): Promise<number> {
    const room = Math.min(this.capacity - this.pool.load, MAX_HELD - this.pool.size);
    if (room <= 0) {
      this.backlog = true;
      return 0;
    }
    const now = this.o.clock.now();
    const claimOwed = this.claimFull || performance.now() - this.claimedAt >= this.o.pollIntervalMs;
    const toLease = claimOwed ? Math.floor(room / 2) : room;
    // About as many events as will fill what is leased (their fan-out as last seen), so the
    // deliveries written are leased here rather than left for a claim.
    const eventLimit = Math.max(1, Math.min(DISPATCH_BATCH, Math.ceil(toLease / this.fanout)));
    const dispatched = await dispatchEvents(this.o.db, {
      limit: eventLimit,
      now,
      merchantsWithUrl: (ids) => merchantsWithWebhookUrl(this.o.accounts, ids),
      lease: { workerId: this.id, limit: toLease },
    });
    if (dispatched.events > 0) this.fanout = Math.max(1, dispatched.deliveries / dispatched.events);
    // Into the pool before anything else can fail: a leased delivery this process does not
    // hold is claimed again by its next round (claimDue), one it holds must be on its way.
    let taken = await this.take(dispatched.leased);
    const left = room - dispatched.leased.length;
    let claimed: ClaimedDelivery[] = [];
    if (left > 0) {
      claimed = await claimDue(this.o.db, { workerId: this.id, now, limit: left, perEndpoint: this.o.perEndpoint * QUEUE_PER_SLOT, skipEndpoints: this.pool.saturated(), ttlMs: this.o.ttlMs, heldIds: [...this.held] });
      this.claimedAt = performance.now();
      this.claimFull = claimed.length >= left;
      taken += await this.take(claimed.filter((d) => !this.held.has(d.id)));
    }
    this.o.logger.debug({ room, held: this.pool.size, dispatched: dispatched.deliveries, leased: dispatched.leased.length, claimed: claimed.length }, 'delivery round');
    // Work found now means more may be waiting: look again as soon as the pool has room.
    this.backlog = claimed.length > 0 || dispatched.events > 0;
    if (this.claimFull || dispatched.events >= eventLimit) this.again = true;
    return taken;
  }

  /** Puts deliveries this worker now holds into the pool; those it has no room for (of an endpoint it has enough of) are given back. */
  private async take(deliveries: ClaimedDelivery[]): Promise<number> {
    if (deliveries.length === 0) return 0;
    const refused: string[] = [];
    for (const d of deliveries) {
      this.held.add(d.id);
      if (!this.pool.offer({ endpointId: d.endpointId, d })) {
        this.held.delete(d.id);
        refused.push(d.id);
      }
    }
    // Another round (or worker) takes them.
    await releaseDeliveries(this.o.db, this.id, refused);
    return deliveries.length - refused.length;
  }

  /**
   * URL and secret as stored now: console webhooks have their own; crypto events go to the
   * merchant's webhookUrl and v1 KYC targets to their own URL, both signed with the
   * merchant's HMAC secret.
   */
  private targetOf(d: ClaimedDelivery, endpoint: EndpointTarget | undefined, merchant: MerchantRow | undefined): Target {
    if (!endpoint) return { url: null, secret: null, disabled: true };
    const open = (sealed: string | null | undefined) => (sealed ? this.openSecret(sealed) : null);
    switch (d.kind) {
      case 'console': {
        // The overlap is read against this worker's clock when the request is signed.
        const overlapping = endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt.getTime() > this.o.clock.now().getTime();
        return { url: endpoint.url, secret: open(endpoint.secretEnc), previousSecret: overlapping ? open(endpoint.previousSecretEnc) : null, disabled: endpoint.disabled };
      }
      case 'target':
        return { url: endpoint.url, secret: open(merchant?.hmacSecretEnc), disabled: endpoint.disabled };
      case 'merchant':
        return { url: merchant ? webhookUrlFor(merchant, d.isTest) : null, secret: open(merchant?.hmacSecretEnc), disabled: endpoint.disabled };
    }
  }

  private openSecret(sealed: string): string {
    let plain = this.opened.get(sealed);
    if (plain === undefined) {
      plain = this.o.secrets.open(sealed);
      if (this.opened.size >= OPENED_SECRETS) this.opened.delete(this.opened.keys().next().value!);
      this.opened.set(sealed, plain);
    }
    return plain;
  }

  /**
   * Every send reads its URL and secret as stored right before it goes out, never a copy
   * from the claim: a secret rotated in the console ("the old one is dead at once") or a URL
   * changed while the delivery waited in the pool is what the next request uses. The reads
   * of sends starting together are one query (readBatched), so this costs a query per
   * batch of sends, not one per delivery.
   */
  private async send(h: Held): Promise<void> {
    const d = h.d;
    let found: [EndpointTarget | undefined, MerchantRow | undefined];
    try {
      found = await Promise.all([this.loadEndpoints(d.endpointId), d.kind === 'console' ? undefined : this.loadMerchants(d.merchantId)]);
    } catch (err) {
      // Nothing went out: this worker's own database did not answer. That is no attempt of the
      // receiver's (recorded, it would wait a minute, count toward the endpoint's 3-day
      // disabling, and show the merchant our error), so the delivery is given back as it was.
      this.giveBack(d, err as Error);
      return;
    }
    let outcome: Outcome;
    let target: Target | null = null;
    try {
      target = this.targetOf(d, ...found);
      if (target.disabled && !d.manual) {
        outcome = { delivery: d, notSent: 'not sent: the endpoint is disabled' };
      } else if (!target.url || !target.secret) {
        const at = this.o.clock.now();
        outcome = {
          delivery: d,
          attempt: { at, durationMs: 0, url: target.url ?? '', statusCode: null, error: target.url ? 'no signing secret' : 'the merchant has no webhookUrl', responseBody: null, succeeded: false },
        };
      } else {
        const at = this.o.clock.now();
        const r = await this.o.sender.send({ url: target.url, secret: target.secret, previousSecret: target.previousSecret, deliveryId: d.id, event: d.eventType, body: d.body, timestamp: at.getTime() });
        const retryAfterMs = retryAfterMsOf(r.statusCode, r.retryAfter, at);
        outcome = { delivery: d, attempt: { at, durationMs: r.durationMs, url: target.url, statusCode: r.statusCode, error: r.error, responseBody: r.responseBody, succeeded: r.succeeded, retryAfterMs } };
        this.observe(d, r.succeeded ? 'succeeded' : r.statusCode !== null ? 'http_error' : r.refused ? 'refused' : 'network_error', r.durationMs);
      }
    } catch (err) {
      // Never leave a claimed delivery without an outcome: record the failure as an attempt.
      const at = this.o.clock.now();
      outcome = { delivery: d, attempt: { at, durationMs: 0, url: target?.url ?? d.url ?? '', statusCode: null, error: `internal error: ${(err as Error).message}`, responseBody: null, succeeded: false } };
    }
    if (outcome.notSent) this.o.metrics?.attempts.inc({ outcome: 'not_sent' });
    this.record(outcome);
    if (this.backlog && this.pool.load < this.capacity / 2) this.kick();
  }

  /**
   * Gives back a delivery this worker could not send, untouched: any worker's next claim takes
   * it, due as it was. The sends of one failed read fail together, in one turn of the event
   * loop: they are released in one statement, with one warning. Held until then, so this
   * worker's own claims leave them alone; if the release fails too, they are this worker's
   * leases and no longer held, which its next claim takes (claimDue).
   */
  private giveBack(d: ClaimedDelivery, err: Error): void {
    this.toGiveBack.ids.push(d.id);
    this.toGiveBack.cause ??= err.message;
    this.givingBack ??= this.releaseGivenBack();
  }

  private async releaseGivenBack(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    // Those given back while a release runs go in the next one.
    while (this.toGiveBack.ids.length > 0) {
      const { ids, cause } = this.toGiveBack;
      this.toGiveBack = { ids: [], cause: null };
      const released = await releaseDeliveries(this.o.db, this.id, ids).then(() => true, () => false);
      for (const id of ids) this.held.delete(id);
      this.o.logger.warn({ err: { message: cause }, deliveries: ids.length, released }, 'could not read webhook targets; deliveries given back unsent');
    }
    this.givingBack = null;
  }

  private observe(d: ClaimedDelivery, outcome: AttemptOutcome, durationMs: number): void {
    const m = this.o.metrics;
    if (!m) return;
    m.attempts.inc({ outcome });
    m.attemptDuration.observe(durationMs / 1000);
    const sinceEvent = Math.max(0, Date.now() - d.eventAt.getTime()) / 1000;
    if (!d.manual && d.attempts === 0) m.firstAttemptLatency.observe(sinceEvent);
    if (outcome === 'succeeded') m.deliveryLatency.observe(sinceEvent);
  }

  private record(o: Outcome): void {
    this.outcomes.push(o);
    if (this.outcomes.length >= FLUSH_BATCH) void this.flush();
    else if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = null;
        void this.flush();
      }, FLUSH_DELAY_MS);
    }
  }

  /** Writes the outcomes collected so far; on failure they are kept and written later. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.outcomes.length > 0 ? this.flush() : undefined));
    if (this.outcomes.length === 0) return Promise.resolve();
    const batch = this.outcomes.splice(0, FLUSH_BATCH);
    this.flushing = (async () => {
      try {
        const F0 = performance.now();
        const disabled = await recordOutcomes(this.o.db, this.id, batch, this.o.clock.now());
        this.o.logger.debug({ outcomes: batch.length, ms: Math.round(performance.now() - F0) }, 'delivery outcomes recorded');
        this.flushFailures = 0;
        for (const o of batch) this.held.delete(o.delivery.id);
        if (disabled.length > 0) {
          this.o.logger.warn({ endpoints: disabled }, 'webhook endpoints disabled after failing for 3 days');
          await this.announceDisabled(disabled);
        }
        this.scheduleRetries(batch);
      } catch (err) {
        this.flushFailures++;
        this.outcomes.unshift(...batch);
        this.o.logger.error({ err: { message: (err as Error).message }, failures: this.flushFailures }, 'could not record delivery attempts; will retry');
        await new Promise((r) => setTimeout(r, backoffDelay(50, this.flushFailures)).unref());
      }
    })().finally(() => {
      this.flushing = null;
      if (this.outcomes.length > 0 && !this.flushTimer) void this.flush();
    });
    return this.flushing;
  }

  /**
   * Tells the merchant of webhooks disabled and not yet announced (these, or any: the sweep):
   * `endpoint.disabled` to its other webhooks and the e-mail's outbox job, one transaction.
   * Never throws: the outcomes are recorded already, and the sweep tries again.
   */
  async announceDisabled(ids?: string[]): Promise<string[]> {
    try {
      return await announceDisabledEndpoints(this.o.db, { now: this.o.clock.now(), ids, also: (tx, e) => writeOutbox(tx, webhookDisabledEmail(e)) });
    } catch (err) {
      this.o.logger.warn({ err: { message: (err as Error).message } }, 'could not announce disabled webhooks; the sweep will');
      return [];
    }
  }

  private scheduleRetries(batch: Outcome[]): void {
    if (!this.o.wakes) return;
    const now = this.o.clock.now().getTime();
    const seconds = new Set<number>();
    for (const o of batch) {
      const next = o.attempt && !o.delivery.manual ? afterOutcome(o).nextAttemptAt : null;
      if (next) seconds.add(Math.ceil(next.getTime() / 1000));
    }
    for (const s of seconds) {
      wakeWebhookWorker(this.o.wakes, 'retry', s * 1000, now).catch((err) =>
        this.o.logger.warn({ err: { message: (err as Error).message } }, 'could not schedule a retry wake; polling will find it'),
      );
    }
  }

  /** Resolves once nothing is held: every claimed delivery sent and recorded, or given back (tests, shutdown). */
  async drain(): Promise<void> {
    while (this.pumping || this.pool.size > 0 || this.outcomes.length > 0 || this.flushing || this.givingBack) {
      await this.pumping;
      await this.pool.idle();
      await this.flush();
      await this.givingBack;
    }
  }

  /** Stops claiming, lets running sends finish and be recorded, and gives back anything still held. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.drain();
    await retireWorker(this.o.db, this.id);
  }
}

/**
 * Reads by key in batches, each answer from a query that started after it was asked for:
 * the keys asked for while no read waits to start are read together on the next turn of the
 * event loop, at most `inFlight` reads running at once; keys asked for while that many run
 * wait for the next read, which starts as soon as one ends. With one read at a time a send
 * waited about two reads; on a loaded machine (Postgres answering in tens of ms) that wait
 * was most of a delivery's time, so the worker's sends overlap their reads.
 */
function readBatched<V>(load: (keys: string[]) => Promise<Map<string, V>>, inFlight = READS_IN_FLIGHT): (key: string) => Promise<V | undefined> {
  type Waiter = { resolve: (v: V | undefined) => void; reject: (e: unknown) => void };
  let waiting: Map<string, Waiter[]> | null = null;
  let scheduled = false;
  let reading = 0;
  const next = () => {
    scheduled = false;
    if (reading >= inFlight || !waiting) return;
    const batch = waiting;
    waiting = null;
    reading++;
    load([...batch.keys()])
      .then(
        (found) => batch.forEach((ws, k) => ws.forEach((w) => w.resolve(found.get(k)))),
        (err) => batch.forEach((ws) => ws.forEach((w) => w.reject(err))),
      )
      .finally(() => {
        reading--;
        next();
      });
  };
  return (key) =>
    new Promise((resolve, reject) => {
      if (!waiting) waiting = new Map();
      if (!scheduled) {
        scheduled = true;
        setImmediate(next);
      }
      const list = waiting.get(key) ?? [];
      list.push({ resolve, reject });
      waiting.set(key, list);
    });
}
