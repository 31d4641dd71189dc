import { recordEvent } from '@pay/webhooks';
import type { Owner } from '@pay/auth';
import type { Clock } from '@pay/runtime';
import type { CryptoQueries } from '../../db';
import { cryptoEvents, type CryptoEvent } from '../../event-catalogue';

export type { CryptoEvent } from '../../event-catalogue';

/**
 * Records a crypto event in the same transaction as the change it reports; it goes to the
 * merchant's `webhookUrl`, in either mode: `livemode` (recordEvent writes it into every
 * event) tells the receiver which. `object` is the payload under its key, e.g. `{ withdrawal: {...} }`,
 * as the kind's entry of ../../event-catalogue.ts declares it.
 */
export async function emitEvent(tx: CryptoQueries, clock: Clock, owner: Owner, event: CryptoEvent, object: Record<string, unknown>): Promise<void> {
  await recordEvent(tx, { source: cryptoEvents.source, owner, type: event, object, at: clock.now().getTime() });
}
