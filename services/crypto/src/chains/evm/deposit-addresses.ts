import { HDKey } from '@scure/bip32';
import { secp256k1 } from '@noble/curves/secp256k1';
import { bytesToHex } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import type { CryptoQueries } from '../../db';
import { takeDepositIndex } from './deposit-index-store';

/**
 * Live deposit addresses: the keys at xpub/0/index (the external chain of BIP-44). Only the
 * extended public key is here; whoever holds the matching private key sweeps the deposits.
 */
export class DepositAddresses {
  private readonly external: HDKey;

  constructor(xpub: string) {
    const root = HDKey.fromExtendedKey(xpub);
    if (root.privateKey) throw new Error('DEPOSIT_XPUB must be an extended public key (xpub…), not a private one: this service holds no deposit keys');
    this.external = root.deriveChild(0);
  }

  addressAt(index: number): string {
    const compressed = this.external.deriveChild(index).publicKey!;
    const uncompressed = secp256k1.ProjectivePoint.fromHex(compressed).toRawBytes(false);
    return publicKeyToAddress(bytesToHex(uncompressed));
  }

  /** The next unused index (one space for every EVM network), and its address. */
  async next(db: CryptoQueries): Promise<{ address: string; index: number }> {
    const index = await takeDepositIndex(db, 'evm');
    return { address: this.addressAt(index), index };
  }
}
