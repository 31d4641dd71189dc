/** Test helper: a `fetch` for PayClient's `fetch` option that sends for real and keeps every exchange. */
export interface Exchange {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  status: number;
  retryAfter: string | null;
  /** When the answer came (epoch ms). */
  at: number;
}

export function recordingFetch(): { fetch: typeof fetch; log: Exchange[] } {
  const log: Exchange[] = [];
  const recorder = (async (url: string, init: RequestInit & { headers: Record<string, string>; body?: Uint8Array }) => {
    const res = await fetch(url, init);
    log.push({ url: String(url), method: init.method ?? 'GET', headers: init.headers, body: init.body, status: res.status, retryAfter: res.headers.get('retry-after'), at: Date.now() });
    return res;
  }) as unknown as typeof fetch;
  return { fetch: recorder, log };
}
