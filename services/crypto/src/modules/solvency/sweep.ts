import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { bytesToHex, erc20Abi, getAddress, type Address, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Clock, Logger } from '@pay/runtime';
import type { Currency, Network } from '../../generated/prisma/client';
import type { SweepTransferRecord as SweepTransfer } from '../../chains/evm/sweeps';
import type { CryptoDb } from '../../db';
import type { CryptoDeps } from '../../deps';
import { liveDepositAddresses } from '../invoices/service';
import { transfersToInvoice } from '../transactions/fragments';
import { fromUnits } from '../../chains/evm/amounts';
import type { EvmNetwork, EvmToken } from '../../chains/evm/config';
import { broadcastSweep, settleSweep, signSweep, unsettledSweeps } from '../../chains/evm/sweeps';
import type { Money } from '../../shared/money';

/** The secrets a sweep needs, as the operator types or pipes them on stdin (never from the environment). */
export interface SweepSecrets {
  /** The account-level key whose public half is DEPOSIT_XPUB: deposit address `index` is its child 0/index. */
  deposits: HDKey;
  /** The account that funds each deposit address's gas: the hot wallet (PAYOUT key). */
  gasPayer: PrivateKeyAccount;
}

/**
 * Reads stdin's text: line 1 the deposit seed phrase (BIP-39, its account at `accountPath`)
 * or the account's extended private key (xprv…); line 2 the private key (hex) of the account
 * that pays the gas. The deposit key must be DEPOSIT_XPUB's private half: a wrong seed or path
 * is refused before anything is sent.
 */
export function readSweepSecrets(text: string, xpub: string, accountPath: string): SweepSecrets {
  const [seed, gasKey] = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  if (!seed || !gasKey) throw new Error("stdin must hold two lines: the deposit seed phrase (or the account's xprv), then the gas payer's private key (hex)");
  let deposits: HDKey;
  if (/^[xt]prv/.test(seed)) deposits = HDKey.fromExtendedKey(seed);
  else {
    const phrase = seed.split(/\s+/).join(' ');
    if (!validateMnemonic(phrase, wordlist)) throw new Error('line 1 is neither an xprv nor a valid BIP-39 seed phrase (English word list, checksum)');
    deposits = HDKey.fromMasterSeed(mnemonicToSeedSync(phrase)).derive(accountPath);
  }
  const expected = HDKey.fromExtendedKey(xpub);
  if (!deposits.privateKey) throw new Error('line 1 must be a private key: an xprv, or a seed phrase');
  if (bytesToHex(deposits.publicKey!) !== bytesToHex(expected.publicKey!) || bytesToHex(deposits.chainCode!) !== bytesToHex(expected.chainCode!)) {
    throw new Error(`the deposit key on line 1 is not DEPOSIT_XPUB's private half (seed phrase at ${accountPath}: pass --path with the account DEPOSIT_XPUB was taken from)`);
  }
  const hex = gasKey.replace(/^0x/, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error("line 2 must be the gas payer's private key: 32 bytes of hex (64 digits, 0x optional)");
  return { deposits, gasPayer: privateKeyToAccount(`0x${hex}`) };
}

/** A deposit address holding tokens, and whether it is swept now. */
export interface SweepItem {
  network: Network;
  currency: Currency;
  address: Address;
  index: number;
  units: bigint;
  amount: Money;
  /** Why it is left where it is, when it is. */
  skipped?: string;
}

/** What the sweep tool writes with: the sweep records (chains/evm/sweeps.ts) and its clock and log. */
export type SweepDeps = { db: CryptoDb; clock: Clock; logger: Logger };

/**
 * The sweeps of earlier runs that are not final yet (a crash, or not yet at `depth`): each is
 * settled where the chain says so at depth, and one still unsettled is broadcast again (the same
 * bytes, the same nonce: never a second transfer). Returns those still unsettled; their
 * addresses are left out of this run's plan.
 */
export async function finishSweeps(deps: SweepDeps, nets: EvmNetwork[], depth: (net: EvmNetwork) => number): Promise<SweepTransfer[]> {
  const open: SweepTransfer[] = [];
  for (const net of nets) {
    for (const s of await unsettledSweeps(deps.db, net)) {
      // A token no longer configured here cannot be read: its sweep is left as it is.
      const token = net.tokens.find((t) => t.currency === s.currency);
      if (!token) continue;
      const now = await settleSweep(deps.db, deps.clock, net, token, s, depth(net), deps.logger);
      if (now.status !== 'Signed') continue;
      await broadcastSweep(net, now, deps.logger);
      open.push(now);
    }
  }
  return open;
}

/**
 * Every live deposit address (of any EVM network: the same key serves them all) that holds the
 * network's token. One whose invoice is still open, or that has a transfer waiting for its
 * confirmations, is left for a later sweep: crediting may still read its balance. One with a
 * sweep not yet final is left too: its nonce is taken until that sweep is settled.
 */
export async function planSweep(deps: SweepDeps, tokens: { net: EvmNetwork; token: EvmToken }[]): Promise<SweepItem[]> {
  const addresses = await liveDepositAddresses(deps, transfersToInvoice);
  const settled = new Map<string, { index: number; settled: boolean }>();
  for (const a of addresses) {
    const seen = settled.get(a.address);
    settled.set(a.address, { index: a.index, settled: a.settled && (seen?.settled ?? true) });
  }
  const items: SweepItem[] = [];
  for (const { net, token } of tokens) {
    const unsettled = new Set((await unsettledSweeps(deps.db, net)).map((s) => s.fromAddress));
    for (const [address, a] of settled) {
      const units = await net.client.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [getAddress(address)] });
      if (units === 0n) continue;
      items.push({
        network: net.network,
        currency: token.currency,
        address: getAddress(address),
        index: a.index,
        units,
        amount: fromUnits(units, token.decimals),
        ...(unsettled.has(getAddress(address))
          ? { skipped: 'a sweep of it is not final yet (run the sweep again once it is at depth)' }
          : a.settled
            ? {}
            : { skipped: 'its invoice is open or a transfer to it waits for confirmations' }),
      });
    }
  }
  return items;
}

export interface Swept {
  item: SweepItem;
  /** The gas sent to the address first, in wei (0 when it had enough). */
  funded: bigint;
  fundTx?: Hex;
  tx: Hex;
}

async function mined(net: EvmNetwork, hash: Hex, what: string): Promise<void> {
  const r = await net.client.waitForTransactionReceipt({ hash, pollingInterval: 250, timeout: 300_000 });
  if (r.status !== 'success') throw new Error(`${what} reverted on ${net.network}: ${hash}`);
}

/** The gas payer's transfer of the coin an address needs for its sweep (the sweep's token transfers are recorded: ../chains/evm/sweeps.ts). */
async function sendGas(net: EvmNetwork, from: PrivateKeyAccount, tx: { to: Address; value: bigint; gas: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }): Promise<Hex> {
  const nonce = await net.client.getTransactionCount({ address: from.address, blockTag: 'pending' });
  const raw = await from.signTransaction({ type: 'eip1559', chainId: net.chainId, nonce, ...tx });
  return net.client.sendRawTransaction({ serializedTransaction: raw });
}

/**
 * Moves each item's tokens to `to`, one address at a time: first the gas the transfer needs
 * (`gasLimit` at today's maxFeePerGas, less what the address holds) from the gas payer, mined,
 * then the whole token balance: signed and recorded in sweep_transfers before it is broadcast,
 * then mined. It stays Signed until it is settled at depth (the next run, or a deposit check
 * that needs it). An address is checked against its index's key before anything is sent. A
 * failure stops the sweep there: what was swept stays swept, and running it again picks up
 * the rest.
 */
export async function runSweep(
  deps: SweepDeps,
  items: SweepItem[],
  tokens: Map<Currency, { net: EvmNetwork; token: EvmToken }>,
  secrets: SweepSecrets,
  to: Address,
  gasLimit: number,
  onSwept: (s: Swept) => void = () => undefined,
): Promise<Swept[]> {
  const done: Swept[] = [];
  for (const item of items.filter((i) => !i.skipped)) {
    const { net, token } = tokens.get(item.currency)!;
    const key = secrets.deposits.deriveChild(0).deriveChild(item.index).privateKey;
    const owner = privateKeyToAccount(bytesToHex(key!));
    if (owner.address !== item.address) throw new Error(`deposit index ${item.index} derives ${owner.address}, not ${item.address}: not this seed's address`);
    const fees = await net.client.estimateFeesPerGas();
    const gas = BigInt(gasLimit);
    const need = gas * fees.maxFeePerGas;
    const has = await net.client.getBalance({ address: item.address });
    let fundTx: Hex | undefined;
    const funded = has < need ? need - has : 0n;
    if (funded > 0n) {
      fundTx = await sendGas(net, secrets.gasPayer, { to: item.address, value: funded, gas: 21_000n, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas });
      await mined(net, fundTx, `funding ${item.address}'s gas`);
    }
    const signed = await signSweep(deps.db, deps.clock, net, token, owner, to, item.units, { gas, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas });
    await broadcastSweep(net, signed, deps.logger);
    const tx = signed.txHash as Hex;
    await mined(net, tx, `the sweep of ${item.address}`);
    const swept = { item, funded, fundTx, tx };
    done.push(swept);
    onSwept(swept);
  }
  return done;
}
