import { randomBytes } from 'node:crypto';
import bs58check from 'bs58check';
import { keccak_256 } from '@noble/hashes/sha3';
import type { Network } from '../generated/prisma/client';

/** Tron mainnet addresses: Base58Check of 0x41 followed by the 20-byte account id. */
const TRON_VERSION = 0x41;
const EVM_HEX = /^0x[0-9a-fA-F]{40}$/;

export function isTronAddress(address: string): boolean {
  if (!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address)) return false;
  try {
    const payload = bs58check.decode(address);
    return payload.length === 21 && payload[0] === TRON_VERSION;
  } catch {
    return false; // bad checksum or alphabet
  }
}

/** EIP-55: a hex digit is upper-case iff the matching nibble of keccak256(lower-case hex) is ≥ 8. */
export function toChecksumAddress(address: string): string {
  const hex = address.slice(2).toLowerCase();
  const hash = Buffer.from(keccak_256(hex)).toString('hex');
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    out += parseInt(hash[i]!, 16) >= 8 ? hex[i]!.toUpperCase() : hex[i];
  }
  return out;
}

/**
 * `0x` + 40 hex digits. All-lower or all-upper case carries no checksum and is accepted;
 * mixed case must be the EIP-55 checksum, which catches most typing errors.
 */
export function isEvmAddress(address: string): boolean {
  if (!EVM_HEX.test(address)) return false;
  const body = address.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  return toChecksumAddress(address) === address;
}

/**
 * The one spelling of a valid address the platform stores its own in (deposit addresses, hot
 * wallets): EIP-55 on EVM networks, where case carries no meaning; Tron's Base58 as it is.
 */
export function canonicalAddress(network: Network, address: string): string {
  return network === 'Tron' ? address : toChecksumAddress(address);
}

export function isValidAddress(network: Network, address: string): boolean {
  return network === 'Tron' ? isTronAddress(address) : isEvmAddress(address);
}

/** Why an address is refused, in words a merchant can act on. */
export function addressProblem(network: Network, address: string): string | null {
  if (isValidAddress(network, address)) return null;
  if (network === 'Tron') {
    if (!address.startsWith('T')) return 'a Tron address starts with T';
    if (address.length !== 34) return `a Tron address has 34 characters, this one has ${address.length}`;
    return 'the Tron address checksum does not match (check for a typing error)';
  }
  if (!address.startsWith('0x')) return `an ${network} address starts with 0x`;
  if (!EVM_HEX.test(address)) return `an ${network} address is 0x followed by 40 hexadecimal digits`;
  return 'the mixed-case address fails its EIP-55 checksum (check for a typing error)';
}

/**
 * A fresh deposit address in the network's real format. The sandbox has no keys behind it;
 * a real chain integration derives the same formats from an HD wallet.
 */
export function generateAddress(network: Network): string {
  const account = randomBytes(20);
  if (network === 'Tron') return bs58check.encode(Buffer.concat([Buffer.from([TRON_VERSION]), account]));
  return toChecksumAddress(`0x${account.toString('hex')}`);
}

/** A random 32-byte transaction hash in the network's usual notation. */
export function generateTxHash(network: Network): string {
  const hash = randomBytes(32).toString('hex');
  return network === 'Tron' ? hash : `0x${hash}`;
}

/**
 * One spelling per transaction hash, so the same transfer cannot be recorded twice:
 * lower-case hex, with `0x` on EVM networks and without it on Tron (each network's usual form).
 */
export function normalizeTxHash(network: Network, hash: string): string {
  const hex = hash.toLowerCase().replace(/^0x/, '');
  return network === 'Tron' ? hex : `0x${hex}`;
}
