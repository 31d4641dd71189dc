import autocannon from 'autocannon';
import { paced } from './paced';
import type { Figures, LoadOptions } from './types';

/**
 * Runs the load from this process for `seconds`: at saturation with autocannon (each
 * connection sends its next request when the last is answered), at a fixed rate with the
 * open-loop `paced` (see why there). Every request is made afresh by `next` (autocannon runs
 * setupRequest per request), so signed requests never repeat a signature.
 */
export async function load(o: LoadOptions): Promise<Figures> {
  if (o.rate) return paced({ ...o, rate: o.rate });
  const prefix = o.prefix ?? '';
  const result = await autocannon({
    url: o.url,
    connections: o.connections,
    duration: o.seconds,
    requests: [
      {
        setupRequest: (req) => {
          const r = o.next();
          // A copy: autocannon adds Content-Length to the headers object it is given.
          return { ...req, method: r.method, path: prefix + r.path, headers: { ...r.headers }, body: r.body };
        },
      },
    ],
  });
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stat.count ?? 0;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
    non2xx: result.non2xx,
    socketErrors: result.errors,
    requests: result.requests.total,
    statusCodes,
  };
}
