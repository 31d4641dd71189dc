import { Type } from '@sinclair/typebox';
import { consoleOwnerFor, type ConsoleMode } from '@pay/accounts';
import type { AuthContext, Owner } from '@pay/auth';

/**
 * What a page shows, and the `mode` its links and forms carry: none when it is the session's own
 * (so the console's addresses stay as they were), `mode=test` on a live session's test view.
 */
export interface View {
  owner: Owner;
  mode: ConsoleMode;
  /** The mode to name in links and API calls, when it differs from the session's. */
  asked?: ConsoleMode;
}

/** The page's `?mode=` (anything but `live` or `test` is the session's mode), checked by consoleOwnerFor: a test key's session asking for live is a 403 page. */
export function viewOf(auth: AuthContext, mode: string | undefined): View {
  const wanted = mode === 'live' || mode === 'test' ? mode : undefined;
  const owner = consoleOwnerFor(auth, wanted);
  const viewed: ConsoleMode = owner.isTest ? 'test' : 'live';
  return { owner, mode: viewed, asked: viewed !== (auth.isTestMode ? 'test' : 'live') ? viewed : undefined };
}

/** `?mode=…` (with `sep` first) when the view names one, else nothing. */
export const modeSuffix = (v: View, sep: '?' | '&' = '?') => (v.asked ? `${sep}mode=${v.asked}` : '');

/** A page's own `?mode=` alone (payments/{id}, payment-reviews): lenient, viewOf reads it. */
export const DetailPageQuery = Type.Object({ mode: Type.Optional(Type.String()) }, { additionalProperties: false });
