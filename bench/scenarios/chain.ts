/**
 * The live EVM watcher on a local devnet (a Hardhat node with a real ERC-20), through the
 * crypto bundle with its background work on and 10,000 open live invoices:
 * - the delay from a transfer's block to its invoice Paid (one confirmation required, so the
 *   figure is the watcher's and tracker's own latency at the intervals stated);
 * - the blocks per second the watcher follows, beside the devnet's own eth_getLogs rate over
 *   the same blocks in the same ranges (the bare baseline: no cursor, no lookup, no records).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { apiClient, registerCryptoMerchant } from '@pay/testing';
import { cursorBlockIn } from '@pay/crypto/test';
import { startBenchDevnet } from '../lib/devnet';
import { toChecksumAddress } from '../../services/crypto/src/chains/addresses';
import { startService } from '../lib/service';
import type { MeasuredSuite, Measurement } from '../lib/types';

const OPEN_INVOICES = 10_000;
const PAYMENTS = 10;
const BLOCKS = 5_000;
const RANGE = 500;
/** The newest blocks the watcher scans again on every pass: its cursor stays this far behind the head. */
const RESCAN = 64;
const WATCH_MS = 50;
const TRACK_MS = 50;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export const chainSuite: MeasuredSuite = {
  name: 'chain',
  scenarios: ['chain.watcher'],
  async run(config): Promise<Measurement[]> {
    const devnet = await startBenchDevnet(config);
    const sql = new pg.Client({ connectionString: config.databaseUrl });
    await sql.connect();
    const svc = await startService(
      'crypto',
      {
        DATABASE_URL: config.databaseUrl,
        REDIS_URL: config.redisUrl,
        SECRETS_KEY: 'be'.repeat(32),
        NODE_ENV: 'production',
        RUN_WORKERS: 'true',
        RATE_LIMIT_PER_SECOND: '100000',
        RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
        QUEUE_PREFIX: `bench-chain-${Date.now()}`,
        EVM_RPC_URL_ETHEREUM: devnet.url,
        USDT_CONTRACT_ETHEREUM: devnet.token,
        DEPOSIT_XPUB: devnet.xpub,
        CONFIRMATIONS_ETHEREUM: '1',
        EVM_MAX_BLOCK_RANGE: String(RANGE),
        EVM_RESCAN_BLOCKS: String(RESCAN),
        EVM_WATCH_INTERVAL_MS: String(WATCH_MS),
        TRACKER_INTERVAL_MS: String(TRACK_MS),
      },
      config.serviceNodeArgs,
    );
    try {
      const m = await registerCryptoMerchant(svc.url);
      const live = apiClient(svc.url, { apiKey: m.liveKey });
      const invoices: { id: string; address: `0x${string}` }[] = [];
      for (let i = 0; i < OPEN_INVOICES; i += 50) {
        const batch = await Promise.all(Array.from({ length: 50 }, () => live.keyed('POST', '/api/v1/invoices', { amount: 1, currency: 'USDT_ERC20', expiresInMinutes: 600 })));
        for (const r of batch) {
          if (r.status !== 201) throw new Error(`live invoice failed: ${r.status} ${JSON.stringify(r.body)}`);
          invoices.push(r.body.data);
        }
      }
      console.log(`  chain: ${OPEN_INVOICES} open live invoices`);

      const delays: number[] = [];
      for (let i = 0; i <= PAYMENTS; i++) {
        const inv = invoices[i]!;
        await devnet.transfer(devnet.payer, inv.address, '1'); // automine: its block exists once this resolves
        const t0 = performance.now();
        for (;;) {
          const r = await live.keyed('GET', `/api/v1/invoices/${inv.id}`);
          if (r.body.data.status === 'Paid') break;
          if (performance.now() - t0 > 30_000) throw new Error(`invoice ${inv.id} not Paid within 30 s\n${svc.logs().slice(-2000)}`);
          await sleep(2);
        }
        if (i > 0) delays.push(performance.now() - t0); // the first warms the paths up
      }

      // A long stretch to follow: transfers to strangers and to invoices in it, then empty blocks.
      await devnet.setAutomine(false);
      for (let i = 0; i < 100; i++) {
        const to = i % 5 === 0 ? invoices[PAYMENTS + 1 + i]!.address : (toChecksumAddress(`0x${randomBytes(20).toString('hex')}`) as `0x${string}`);
        await devnet.signedTransfer(devnet.payer, to, '1').then((raw) => devnet.client.sendRawTransaction({ serializedTransaction: raw }));
        if (i % 10 === 9) await devnet.mine(1);
      }
      await devnet.setAutomine(true);
      const cursor = () => cursorBlockIn((text, values) => sql.query(text, values).then((r) => r.rows), 'Ethereum');
      const from = await cursor();
      const t0 = performance.now();
      await devnet.mine(BLOCKS);
      const head = await devnet.client.getBlockNumber();
      while ((await cursor()) < head - BigInt(RESCAN)) await sleep(5);
      const watched = Number(head - BigInt(RESCAN) - from) / ((performance.now() - t0) / 1000);

      // The bare figure: the same blocks read by eth_getLogs in the same ranges, one after another.
      const b0 = performance.now();
      for (let start = from + 1n; start <= head; start += BigInt(RANGE)) {
        const end = start + BigInt(RANGE) - 1n < head ? start + BigInt(RANGE) - 1n : head;
        await devnet.transferLogs(start, end);
      }
      const bare = Number(head - from) / ((performance.now() - b0) / 1000);

      return [
        {
          scenario: 'chain.watcher',
          what: `transfer's block to invoice Paid, 1 confirmation, ${OPEN_INVOICES} open invoices (watch ${WATCH_MS} ms, track ${TRACK_MS} ms), median of ${PAYMENTS} (max ${Math.round(Math.max(...delays))} ms)`,
          value: median(delays),
          unit: 'ms',
        },
        {
          scenario: 'chain.watcher',
          what: `blocks followed per second to the head, ${Number(head - from)} blocks (100 transfers, 20 to invoices), ranges of ${RANGE}, ${OPEN_INVOICES} open invoices`,
          value: watched,
          unit: 'blocks/s',
          baseline: { value: bare, what: "the devnet's own eth_getLogs over the same ranges, blocks/s" },
          ratio: watched / bare,
        },
      ];
    } finally {
      await svc.stop();
      await sql.end();
      await devnet.stop();
    }
  },
};
