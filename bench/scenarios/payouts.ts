/**
 * Live payouts on a local devnet (a Hardhat node with a real ERC-20), as production splits
 * them: the crypto API bundle takes the withdrawals, a workers-only bundle holding the payout
 * key pays them. Every step of a payout locks its withdrawal row first (issue 27: exactly
 * once), so this measures what that safety costs:
 * - withdrawals per second from the signed requests to every one Completed at one
 *   confirmation, beside the bare figure: the same number of token transfers sent from the
 *   same hot wallet by viem alone, one after another to each receipt (no database, no lock, no queue);
 * - the latency of one withdrawal, request to Completed, when it is alone.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiClient, registerCryptoMerchant, type RunningService } from '@pay/testing';
import { startBenchDevnet } from '../lib/devnet';
import { toChecksumAddress } from '../../services/crypto/src/chains/addresses';
import { startService } from '../lib/service';
import type { MeasuredSuite, Measurement } from '../lib/types';

const PAYOUTS = 40;
const SINGLES = 5;
const AMOUNT = 20;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const stranger = () => toChecksumAddress(`0x${randomBytes(20).toString('hex')}`) as `0x${string}`;

export const payoutSuite: MeasuredSuite = {
  name: 'payouts',
  scenarios: ['payouts.devnet'],
  async run(config): Promise<Measurement[]> {
    const devnet = await startBenchDevnet(config);
    // The key as operators hand it over: a file only the workers process reads.
    const keyFile = path.join(mkdtempSync(path.join(tmpdir(), 'bench-payout-key-')), 'payout.key');
    writeFileSync(keyFile, `${devnet.hotWalletKey}\n`);
    chmodSync(keyFile, 0o600);
    const common = {
      DATABASE_URL: config.databaseUrl,
      REDIS_URL: config.redisUrl,
      SECRETS_KEY: 'be'.repeat(32),
      NODE_ENV: 'production',
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
      QUEUE_PREFIX: `bench-payouts-${Date.now()}`,
      EVM_RPC_URL_ETHEREUM: devnet.url,
      USDT_CONTRACT_ETHEREUM: devnet.token,
      DEPOSIT_XPUB: devnet.xpub,
      CONFIRMATIONS_ETHEREUM: '1',
      WITHDRAWAL_MINIMUMS: `USDT_ERC20=${AMOUNT}`,
      WITHDRAWALS_PER_HOUR: '100000',
      PAYOUT_MAX_FEE_GWEI_ETHEREUM: '500', // far above the devnet's fees: nothing is held
      EVM_WATCH_INTERVAL_MS: '50',
      TRACKER_INTERVAL_MS: '50',
      WITHDRAWAL_POLL_MS: '50',
    };
    const api = await startService('crypto', { ...common, RUN_WORKERS: 'false' }, config.serviceNodeArgs);
    const workers = await startService('crypto', { ...common, SERVE_API: 'false', RUN_WORKERS: 'true', PAYOUT_PRIVATE_KEY_FILE: keyFile }, config.serviceNodeArgs);
    // What a wait that times out shows: the processes' warnings and errors (the workers do the
    // chain's work), then the workers' last lines.
    const logsOf = () => [problemsOf('workers-only process', workers), problemsOf('API process', api), `workers-only process, last lines:\n${workers.logs().slice(-1500) || '(nothing logged)'}`].join('\n');
    try {
      const m = await registerCryptoMerchant(api.url);
      const live = apiClient(api.url, { apiKey: m.liveKey, hmacSecret: m.hmacSecret }, 'crypto');
      // Funds the way a merchant gets them: a live invoice paid on chain.
      const total = (PAYOUTS + SINGLES + 1) * AMOUNT * 2;
      const inv = (await live.keyed('POST', '/api/v1/invoices', { amount: total, currency: 'USDT_ERC20', expiresInMinutes: 600 })).body.data;
      await devnet.transfer(devnet.payer, inv.address, String(total));
      await until(async () => (await live.keyed('GET', `/api/v1/invoices/${inv.id}`)).body.data.status === 'Paid', 60_000, 'the funding invoice Paid', logsOf);

      const withdraw = async () => {
        const r = await live.signed('POST', '/api/v1/withdrawals', { toAddress: stranger(), amount: AMOUNT, currency: 'USDT_ERC20' });
        if (r.status !== 201) throw new Error(`withdrawal refused: ${r.status} ${JSON.stringify(r.body)}`);
        return r.body.data.id as string;
      };
      const completed = (id: string) => until(async () => statusOf(await live.keyed('GET', `/api/v1/withdrawals/${id}`)) === 'Completed', 120_000, `withdrawal ${id} Completed`, logsOf);

      // One at a time: the latency a merchant sees (the first warms the paths up).
      const singles: number[] = [];
      for (let i = 0; i <= SINGLES; i++) {
        const t0 = performance.now();
        await completed(await withdraw());
        if (i > 0) singles.push(performance.now() - t0);
      }

      // A burst: every request at once, then every payout to Completed.
      const b0 = performance.now();
      const ids = await Promise.all(Array.from({ length: PAYOUTS }, withdraw));
      await Promise.all(ids.map(completed));
      const served = PAYOUTS / ((performance.now() - b0) / 1000);

      // The bare figure: the same transfers from the same hot wallet by viem alone, one after
      // another to each receipt (the devnet mines each in its own block, as it does the payouts).
      const r0 = performance.now();
      for (let i = 0; i < PAYOUTS; i++) await devnet.transfer(devnet.hotWallet, stranger(), String(AMOUNT));
      const bare = PAYOUTS / ((performance.now() - r0) / 1000);

      return [
        {
          scenario: 'payouts.devnet',
          what: `${PAYOUTS} live withdrawals requested at once to all Completed (1 confirmation; API and workers-only processes, poll 50 ms)`,
          value: served,
          unit: 'payouts/s',
          baseline: { value: bare, what: `the same ${PAYOUTS} token transfers sent by viem alone, one after another, transfers/s` },
          ratio: served / bare,
        },
        {
          scenario: 'payouts.devnet',
          what: `one live withdrawal alone, request to Completed, median of ${SINGLES} (max ${Math.round(Math.max(...singles))} ms)`,
          value: median(singles),
          unit: 'ms',
        },
      ];
    } finally {
      await workers.stop();
      await api.stop();
      await devnet.stop();
    }
  },
};

/** A process's last warnings and errors, each cut short: what explains a wait that never ends. */
function problemsOf(name: string, svc: RunningService): string {
  const all = svc.problems();
  if (all.length === 0) return `${name}: no warnings or errors logged`;
  return `${name}: ${all.length} warnings and errors logged, the last ${Math.min(5, all.length)}:\n${all.slice(-5).map((l) => l.slice(0, 600)).join('\n')}`;
}

const statusOf = (r: { body: { data?: { status?: string } } }) => r.body.data?.status;

/** Polls `check` until it holds; past `ms`, throws saying what was awaited and what the processes logged by then. */
async function until(check: () => Promise<boolean>, ms: number, what: string, logs: () => string): Promise<void> {
  const t0 = performance.now();
  while (!(await check())) {
    if (performance.now() - t0 > ms) throw new Error(`payouts.devnet: not ${what} within ${ms} ms\n${logs()}`);
    await sleep(5);
  }
}
