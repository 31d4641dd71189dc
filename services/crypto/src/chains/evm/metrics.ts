import { Counter, Gauge } from 'prom-client';
import { metricsRegistry } from '@pay/runtime';

/**
 * The live chain's metrics. Providers are labelled by their redacted name (scheme and host),
 * never by their URL, which holds the API key.
 */

export const rpcErrors = new Counter({
  name: 'crypto_chain_rpc_errors_total',
  help: 'JSON-RPC calls a provider failed (an error, a timeout, a refused eth_getLogs range), by network, provider (scheme and host only) and call',
  labelNames: ['network', 'provider', 'call'] as const,
  registers: [metricsRegistry],
});

export const rpcDisagreements = new Counter({
  name: 'crypto_chain_rpc_disagreements_total',
  help: 'Answers on which the providers of a network differed (logs, receipts, block hashes): nothing is recorded or credited on them until they agree',
  labelNames: ['network', 'what'] as const,
  registers: [metricsRegistry],
});

export const blocksBehind = new Gauge({
  name: 'crypto_chain_blocks_behind',
  help: "How far the watcher's cursor (last block scanned at depth) is behind the providers' common head, by network",
  labelNames: ['network'] as const,
  registers: [metricsRegistry],
});

export const logRange = new Gauge({
  name: 'crypto_chain_log_range_blocks',
  help: 'Blocks the watcher asks of eth_getLogs at once now (halved when a provider refuses a range, grown back after a run of answers)',
  labelNames: ['network'] as const,
  registers: [metricsRegistry],
});

export const unbackedDeposits = new Counter({
  name: 'crypto_chain_unbacked_deposits_total',
  help: "Deposits held back because the deposit address's token balance at their block does not cover what it has been credited (an invented log, or a provider that lies)",
  labelNames: ['network', 'currency'] as const,
  registers: [metricsRegistry],
});
