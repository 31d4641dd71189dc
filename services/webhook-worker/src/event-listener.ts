import pg from 'pg';
import { backoffDelay, type Logger } from '@pay/runtime';
import { EVENTS_CHANNEL } from '@pay/webhooks';

export interface EventListenerOptions {
  databaseUrl: string;
  logger: Logger;
  /** Called on every notification, and once each time listening (re)starts. */
  onEvent: () => void;
  /** First reconnect delay; doubles per failure up to a cap. */
  retryMs?: number;
}

/**
 * LISTENs for the NOTIFY that recording an event sends at commit (a trigger on
 * webhooks.events), so a new event reaches the worker in milliseconds instead of at its next
 * poll. A notification only says "look now": the worker's query finds the work. Lost
 * notifications cost nothing but latency, so while the connection is down the poll carries
 * on; on every (re)connection `onEvent` runs once to pick up what was committed meanwhile.
 */
export function listenForEvents(o: EventListenerOptions): { close(): Promise<void>; readonly listening: boolean } {
  let client: pg.Client | null = null;
  let closed = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;

  const retry = () => {
    if (closed) return;
    failures++;
    timer = setTimeout(() => void connect(), backoffDelay(o.retryMs ?? 200, failures));
    timer.unref();
  };

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: o.databaseUrl, connectionTimeoutMillis: 5000, keepAlive: true });
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (client === c) client = null;
      if (!closed) o.logger.warn({ err: err ? { message: err.message } : undefined }, 'lost the event notification connection; polling until it is back');
      c.end().catch(() => undefined);
      retry();
    };
    c.on('error', onLost);
    c.on('end', () => onLost());
    c.on('notification', () => o.onEvent());
    try {
      await c.connect();
      // A channel name is an identifier (LISTEN takes no parameter): quoted by pg itself.
      await c.query(`LISTEN ${c.escapeIdentifier(EVENTS_CHANNEL)}`);
      if (closed || lost) return void c.end().catch(() => undefined);
      client = c;
      failures = 0;
      o.onEvent();
    } catch (err) {
      onLost(err as Error);
    }
  };

  void connect();
  return {
    get listening() {
      return client !== null;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
