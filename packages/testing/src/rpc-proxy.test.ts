import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRpcProxy, TRANSFER_TOPIC, type RpcProxy } from './rpc-proxy';

// The proxy's own behaviour, in front of a small JSON-RPC node on loopback that answers the
// handful of methods used here (the devnet tests of services/crypto put it in front of Hardhat).
const HEAD = 100n;
let upstream: ReturnType<typeof createServer>;
let upstreamUrl: string;
let proxy: RpcProxy;

async function rpc(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return res.json();
}
const call = (method: string, params: unknown[] = []) => rpc(proxy.url + '/v3/some-key', { jsonrpc: '2.0', id: 7, method, params });

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let s = '';
    req.on('data', (c) => (s += c)).on('end', () => {
      const { id, method, params } = JSON.parse(s);
      const result =
        method === 'eth_blockNumber' ? `0x${HEAD.toString(16)}`
        : method === 'eth_getBlockByNumber' ? { number: params[0], hash: `0x${'ab'.repeat(31)}${Number(BigInt(params[0]) % 256n).toString(16).padStart(2, '0')}` }
        : method === 'eth_getLogs' ? []
        : method === 'eth_getTransactionReceipt' ? null
        : 'upstream';
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  proxy = await startRpcProxy(upstreamUrl);
});
afterEach(() => proxy.reset());
afterAll(async () => {
  await proxy.stop();
  await new Promise((r) => upstream.close(r));
});

describe('JSON-RPC fault proxy', () => {
  it('forwards single and batched calls, keeping each call', async () => {
    expect(await call('eth_blockNumber')).toEqual({ jsonrpc: '2.0', id: 7, result: '0x64' });
    const batch = (await rpc(proxy.url, [{ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }, { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] }])) as { id: number; result: unknown }[];
    expect(batch.map((b) => [b.id, b.result])).toEqual([[1, 'upstream'], [2, '0x64']]);
    expect(proxy.callsOf('eth_blockNumber').length).toBeGreaterThanOrEqual(2);
  });

  it('caps eth_getLogs ranges, empties answers a number of times, refuses, delays and drops', async () => {
    proxy.capLogRange(10);
    expect(await call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0xa' }])).toMatchObject({ result: [] });
    expect(await call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0xb' }])).toMatchObject({ error: { code: -32005 } });
    proxy.reset();

    proxy.fault({ match: 'eth_blockNumber', action: { result: '0x1' }, times: 1 });
    expect(await call('eth_blockNumber')).toMatchObject({ result: '0x1' });
    expect(await call('eth_blockNumber')).toMatchObject({ result: '0x64' }); // spent

    proxy.fault({ match: 'eth_chainId', action: { error: { code: 429, message: 'rate limited' } } });
    expect(await call('eth_chainId')).toMatchObject({ error: { code: 429 } });

    proxy.fault({ match: 'eth_gasPrice', action: { delayMs: 300 } });
    const t0 = Date.now();
    await call('eth_gasPrice');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);

    proxy.fault({ match: 'eth_syncing', action: 'drop' });
    await expect(call('eth_syncing')).rejects.toThrow();
  });

  it('invents a Transfer log inside the ranges that cover it, with a receipt, on the real block hash', async () => {
    const token = `0x${'11'.repeat(20)}`;
    const to = `0x${'22'.repeat(20)}`;
    const { txHash, blockHash } = await proxy.inventTransfer({ token, from: `0x${'33'.repeat(20)}`, to, units: 10n ** 18n, blockNumber: 50n });
    expect(blockHash).toBe(`0x${'ab'.repeat(31)}32`);
    const inRange = (await call('eth_getLogs', [{ address: [token], fromBlock: '0x30', toBlock: '0x40' }])) as { result: { topics: string[]; data: string; transactionHash: string }[] };
    expect(inRange.result).toHaveLength(1);
    expect(inRange.result[0]).toMatchObject({ transactionHash: txHash, topics: [TRANSFER_TOPIC, expect.any(String), `0x${'0'.repeat(24)}${'22'.repeat(20)}`] });
    expect(BigInt(inRange.result[0]!.data)).toBe(10n ** 18n);
    expect(await call('eth_getLogs', [{ address: token, fromBlock: '0x33', toBlock: 'latest' }])).toMatchObject({ result: [] });
    expect(await call('eth_getTransactionReceipt', [txHash])).toMatchObject({ result: { status: '0x1', blockHash, logs: [{ transactionHash: txHash }] } });
  });

  it('rewrites the upstream answer', async () => {
    proxy.fault({ match: 'eth_blockNumber', action: { rewrite: (r) => `0x${(BigInt(r as string) - 5n).toString(16)}` } });
    expect(await call('eth_blockNumber')).toMatchObject({ result: '0x5f' });
  });
});
