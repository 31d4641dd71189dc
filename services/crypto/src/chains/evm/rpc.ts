import { createPublicClient, http, type PublicClient, type Transport } from 'viem';
import { ConfigError } from '@pay/runtime';
import { rpcErrors } from './metrics';

/**
 * One JSON-RPC provider of a network. Its URL usually holds the provider's API key (in the
 * path, the query or the user part), so the URL itself is kept inside the transport and every
 * other place (logs, errors, metrics labels, /readyz) uses `name`: the scheme and host only.
 */
export interface RpcProvider {
  name: string;
  client: PublicClient;
}

/** Scheme and host of an RPC URL, never its path, query or credentials (where API keys sit). */
export function redactRpcUrl(url: string): string {
  try {
    const u = new URL(url);
    const hidden = u.username || u.password || (u.pathname !== '/' && u.pathname !== '') || u.search;
    return `${u.protocol}//${u.host}${hidden ? '/…' : ''}`;
  } catch {
    return '(an RPC URL)';
  }
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * The URLs of a comma-separated setting. Plain http:// is refused unless it points at this
 * machine: anyone on the path could answer for the node (invent a deposit) or read its API key.
 */
export function parseRpcUrls(variable: string, value: string): string[] {
  const urls = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (urls.length === 0) throw new ConfigError([`${variable} is set but names no URL: give one or more https:// JSON-RPC URLs, comma-separated`]);
  const problems: string[] = [];
  for (const [i, url] of urls.entries()) {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      problems.push(`${variable}: URL ${i + 1} is not a URL`);
      continue;
    }
    if (u.protocol === 'https:') continue;
    if (u.protocol === 'http:' && (LOOPBACK.has(u.hostname) || u.hostname.startsWith('127.'))) continue;
    problems.push(
      `${variable}: URL ${i + 1} (${redactRpcUrl(url)}) must be https:// (plain http:// is accepted only on loopback, 127.0.0.1 or localhost: a node reached over plain HTTP can be impersonated)`,
    );
  }
  if (problems.length) throw new ConfigError(problems);
  if (new Set(urls).size !== urls.length) throw new ConfigError([`${variable} names the same URL twice: each provider once`]);
  return urls;
}

/** The substrings of `url` that may hold a secret, longest first. */
function secretsOf(url: string): string[] {
  const out = new Set<string>([url]);
  try {
    const u = new URL(url);
    out.add(u.toString());
    out.add(u.toString().replace(/\/$/, ''));
    if (u.pathname.length > 1) out.add(u.pathname + u.search);
    if (u.search.length > 1) out.add(u.search);
    if (u.username) out.add(u.username);
    if (u.password) out.add(u.password);
  } catch {
    // not a URL: the whole string is the secret
  }
  return [...out].filter((s) => s.length > 1).sort((a, b) => b.length - a.length);
}

/** `text` with each secret replaced by the provider's name. */
function scrubText(text: string, secrets: string[], name: string): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join(name);
  return out;
}

/**
 * Rewrites, in place, every string an error carries (message, stack, viem's details, metaMessages
 * and url, and the same on each cause) so that none holds the URL. The error keeps its class,
 * code and status, so viem's retries and our own handling see what they saw before.
 */
export function scrubError<T>(err: T, url: string, name: string): T {
  const secrets = secretsOf(url);
  const seen = new Set<unknown>();
  const walk = (e: unknown) => {
    if (!e || typeof e !== 'object' || seen.has(e)) return;
    seen.add(e);
    const rec = e as Record<string, unknown>;
    for (const key of Object.getOwnPropertyNames(e)) {
      const v = rec[key];
      try {
        if (typeof v === 'string') rec[key] = scrubText(v, secrets, name);
        else if (Array.isArray(v)) rec[key] = v.map((x) => (typeof x === 'string' ? scrubText(x, secrets, name) : x));
      } catch {
        // a read-only property: left as it is
      }
    }
    walk(rec.cause);
  };
  walk(err);
  return err;
}

/** viem's HTTP transport, whose errors never carry the URL. */
function redactedHttp(url: string, name: string): Transport {
  const inner = http(url, { batch: true, retryCount: 2, retryDelay: 100 });
  return (params) => {
    const t = inner(params);
    return {
      ...t,
      async request(args: Parameters<typeof t.request>[0], options?: Parameters<typeof t.request>[1]) {
        try {
          return await t.request(args, options);
        } catch (err) {
          throw scrubError(err, url, name);
        }
      },
      value: { ...t.value, url: name },
    } as ReturnType<Transport>;
  };
}

/** A provider per URL; `network` names them in logs and metrics. */
export function rpcProviders(network: string, urls: string[]): RpcProvider[] {
  return urls.map((url, i) => {
    const name = urls.length > 1 ? `${network} #${i + 1} ${redactRpcUrl(url)}` : `${network} ${redactRpcUrl(url)}`;
    // No cache of the head: confirmations are counted from it, and a stale one would hold them back.
    return { name, client: createPublicClient({ transport: redactedHttp(url, name), cacheTime: 0 }) as PublicClient };
  });
}

/** A provider failed (its error already holds no URL): the caller waits and asks again, it decides nothing. */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    what: string,
    override readonly cause: unknown,
  ) {
    super(`${provider} failed ${what}: ${((cause as Error)?.message ?? String(cause)).split('\n')[0]}`);
  }
}

/**
 * The answer of every provider of a network to the same question, in provider order. One that
 * fails fails the whole question: no provider's silence is taken for agreement.
 */
export async function askAll<T>(network: string, providers: RpcProvider[], what: string, call: (client: PublicClient) => Promise<T>): Promise<T[]> {
  const settled = await Promise.allSettled(providers.map((p) => call(p.client)));
  return settled.map((s, i) => {
    if (s.status === 'fulfilled') return s.value;
    rpcErrors.inc({ network, provider: providers[i]!.name, call: what });
    throw new ProviderError(providers[i]!.name, what, s.reason);
  });
}
