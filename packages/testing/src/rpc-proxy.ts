import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';

/** One JSON-RPC call as the proxy received it. */
export interface RpcCall {
  method: string;
  params: unknown[];
}

/** What a fault does with a call it matches. */
export type RpcFaultAction =
  /** The connection is cut without an answer (a node that went away mid-call). */
  | 'drop'
  /** Answered after `delayMs`, as the upstream answers (a slow or lagging node). */
  | { delayMs: number }
  /** A JSON-RPC error, as a node that refuses the call (a capped range, a rate limit). */
  | { error: { code: number; message: string } }
  /** This result instead of the upstream's (an empty or invented answer). */
  | { result: unknown }
  /** The upstream's result, changed (null: no upstream answer was had). */
  | { rewrite: (result: unknown, call: RpcCall) => unknown | Promise<unknown> };

export interface RpcFault {
  /** A method name, or any test of the call. */
  match: string | ((call: RpcCall) => boolean);
  action: RpcFaultAction;
  /** How many calls it applies to before it is spent; unlimited when absent. */
  times?: number;
}

/** A Transfer log made up by a dishonest node: it exists in no block of the upstream chain. */
export interface InventedTransfer {
  token: string;
  from: string;
  to: string;
  /** Base units of the token. */
  units: bigint;
  /** The block it claims to be in; its hash is the upstream's hash of that block unless `blockHash` says otherwise. */
  blockNumber: bigint;
  blockHash?: string;
  txHash?: string;
}

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const hex = (n: bigint) => `0x${n.toString(16)}`;
const word = (v: string | bigint) => `0x${(typeof v === 'bigint' ? v.toString(16) : v.toLowerCase().replace(/^0x/, '')).padStart(64, '0')}`;

/**
 * A JSON-RPC proxy on loopback in front of a real node (a devnet), for tests of how our code
 * takes a faulty or dishonest provider: it forwards every call (single or batched) unless a
 * fault matches it, and can drop, delay, refuse, empty or rewrite answers, cap eth_getLogs
 * ranges as hosted providers do, and invent Transfer logs with their receipts. Any URL path is
 * accepted (so a test can give it one that looks like a provider's API key), and every call is
 * kept in `calls`.
 */
export async function startRpcProxy(upstreamUrl: string) {
  let faults: RpcFault[] = [];
  const invented: (InventedTransfer & { blockHash: string; txHash: string; logIndex: number })[] = [];
  const calls: RpcCall[] = [];
  const sockets = new Set<Socket>();

  async function upstream(call: RpcCall): Promise<{ result?: unknown; error?: unknown }> {
    const res = await fetch(upstreamUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: call.method, params: call.params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: unknown };
    return 'error' in body && body.error !== undefined ? { error: body.error } : { result: body.result };
  }

  async function blockNumberOf(tag: unknown): Promise<bigint> {
    if (typeof tag === 'string' && /^0x[0-9a-f]+$/i.test(tag)) return BigInt(tag);
    const head = await upstream({ method: 'eth_blockNumber', params: [] });
    return BigInt(head.result as string);
  }

  function logOf(t: (typeof invented)[number]) {
    return {
      address: t.token.toLowerCase(),
      topics: [TRANSFER_TOPIC, word(t.from), word(t.to)],
      data: word(t.units),
      blockNumber: hex(t.blockNumber),
      blockHash: t.blockHash,
      transactionHash: t.txHash,
      transactionIndex: '0x0',
      logIndex: hex(BigInt(t.logIndex)),
      removed: false,
    };
  }

  /** The invented logs an eth_getLogs filter covers. */
  async function inventedLogs(filter: { address?: string | string[]; fromBlock?: string; toBlock?: string; blockHash?: string }) {
    if (invented.length === 0) return [];
    const addresses = filter.address === undefined ? null : (Array.isArray(filter.address) ? filter.address : [filter.address]).map((a) => a.toLowerCase());
    const out = [];
    for (const t of invented) {
      if (addresses && !addresses.includes(t.token.toLowerCase())) continue;
      if (filter.blockHash) {
        if (filter.blockHash.toLowerCase() !== t.blockHash.toLowerCase()) continue;
      } else {
        const from = await blockNumberOf(filter.fromBlock ?? 'latest');
        const to = await blockNumberOf(filter.toBlock ?? 'latest');
        if (t.blockNumber < from || t.blockNumber > to) continue;
      }
      out.push(logOf(t));
    }
    return out;
  }

  /** The proxy's own answers for invented transactions (receipt, transaction) and logs. */
  async function answerInvented(call: RpcCall, forward: () => Promise<{ result?: unknown; error?: unknown }>) {
    const byHash = (h: unknown) => invented.find((t) => typeof h === 'string' && t.txHash.toLowerCase() === h.toLowerCase());
    if (call.method === 'eth_getTransactionReceipt' && byHash(call.params[0])) {
      const t = byHash(call.params[0])!;
      return {
        result: {
          transactionHash: t.txHash, transactionIndex: '0x0', blockHash: t.blockHash, blockNumber: hex(t.blockNumber),
          from: t.from.toLowerCase(), to: t.token.toLowerCase(), cumulativeGasUsed: '0xb411', gasUsed: '0xb411', effectiveGasPrice: '0x3b9aca00',
          contractAddress: null, logs: [logOf(t)], logsBloom: `0x${'0'.repeat(512)}`, status: '0x1', type: '0x2',
        },
      };
    }
    if (call.method === 'eth_getTransactionByHash' && byHash(call.params[0])) {
      const t = byHash(call.params[0])!;
      return {
        result: {
          hash: t.txHash, blockHash: t.blockHash, blockNumber: hex(t.blockNumber), transactionIndex: '0x0', from: t.from.toLowerCase(), to: t.token.toLowerCase(),
          value: '0x0', gas: '0x186a0', gasPrice: '0x3b9aca00', maxFeePerGas: '0x3b9aca00', maxPriorityFeePerGas: '0x3b9aca00', nonce: '0x0', type: '0x2',
          input: `0xa9059cbb${word(t.to).slice(2)}${word(t.units).slice(2)}`, chainId: '0x1', v: '0x0', r: word('1'), s: word('1'), accessList: [],
        },
      };
    }
    const answer = await forward();
    if (call.method === 'eth_getLogs' && Array.isArray(answer.result)) {
      return { result: [...answer.result, ...(await inventedLogs((call.params[0] ?? {}) as never))] };
    }
    return answer;
  }

  async function handle(call: RpcCall): Promise<{ result?: unknown; error?: unknown } | 'drop'> {
    calls.push(call);
    const fault = faults.find((f) => (typeof f.match === 'string' ? f.match === call.method : f.match(call)));
    if (fault && fault.times !== undefined && --fault.times <= 0) faults = faults.filter((f) => f !== fault);
    const forward = () => upstream(call);
    const honest = () => answerInvented(call, forward);
    if (!fault) return honest();
    const a = fault.action;
    if (a === 'drop') return 'drop';
    if ('delayMs' in a) {
      await new Promise((r) => setTimeout(r, a.delayMs));
      return honest();
    }
    if ('error' in a) return { error: a.error };
    if ('result' in a) return { result: a.result };
    const answer = await honest();
    return { result: await a.rewrite(answer.error ? null : answer.result, call) };
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
        const batch = Array.isArray(body);
        const requests = (batch ? body : [body]) as { id: unknown; method: string; params?: unknown[] }[];
        const answers = await Promise.all(requests.map((r) => handle({ method: r.method, params: r.params ?? [] })));
        if (answers.includes('drop')) {
          req.socket.destroy();
          return;
        }
        const replies = answers.map((a, i) => ({ jsonrpc: '2.0', id: requests[i]!.id, ...(a as object) }));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(batch ? replies : replies[0]));
      } catch (err) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`rpc proxy: ${(err as Error).message}`);
      }
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const proxy = {
    url: `http://127.0.0.1:${port}`,
    /** Every call received, in order (batched calls one by one). */
    calls,
    /** Adds a fault; the first fault that matches a call decides it. Returns its remover. */
    fault(f: RpcFault): () => void {
      const own = { ...f };
      faults.push(own);
      return () => {
        faults = faults.filter((x) => x !== own);
      };
    },
    /** Refuses eth_getLogs over more than `maxBlocks` blocks, as hosted providers do. */
    capLogRange(maxBlocks: number, message = `query exceeds max block range ${maxBlocks}`): () => void {
      return proxy.fault({
        match: (c) => {
          if (c.method !== 'eth_getLogs') return false;
          const f = (c.params[0] ?? {}) as { fromBlock?: string; toBlock?: string; blockHash?: string };
          if (f.blockHash || !f.fromBlock?.startsWith('0x') || !f.toBlock?.startsWith('0x')) return false;
          return BigInt(f.toBlock) - BigInt(f.fromBlock) + 1n > BigInt(maxBlocks);
        },
        action: { error: { code: -32005, message } },
      });
    },
    /** Answers eth_getLogs with no logs, `times` times (a lagging or broken node). */
    emptyLogs(times?: number): () => void {
      return proxy.fault({ match: 'eth_getLogs', action: { result: [] }, times });
    },
    /**
     * Makes up a Transfer log (and its receipt and transaction) that this proxy then serves
     * as if it were on chain; the upstream never hears of it. Returns the invented hash.
     */
    async inventTransfer(t: InventedTransfer): Promise<{ txHash: string; blockHash: string }> {
      let blockHash = t.blockHash;
      if (!blockHash) {
        const block = await upstream({ method: 'eth_getBlockByNumber', params: [hex(t.blockNumber), false] });
        blockHash = (block.result as { hash: string } | null)?.hash ?? word(randomBytes(32).toString('hex'));
      }
      const txHash = t.txHash ?? `0x${randomBytes(32).toString('hex')}`;
      invented.push({ ...t, blockHash, txHash, logIndex: 100 + invented.length });
      return { txHash, blockHash };
    },
    /** Forgets every fault and invented transfer: an honest proxy again. */
    reset(): void {
      faults = [];
      invented.length = 0;
    },
    /** The calls of one method received so far. */
    callsOf(method: string): RpcCall[] {
      return calls.filter((c) => c.method === method);
    },
    async stop(): Promise<void> {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}

export type RpcProxy = Awaited<ReturnType<typeof startRpcProxy>>;
