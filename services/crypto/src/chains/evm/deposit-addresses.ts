import { HDKey } from '@scure/bip32';
import { secp256k1 } from '@noble/curves/secp256k1';
import { bytesToHex } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { tablesIn, type CryptoDb } from '../../db';

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
  async next(db: CryptoDb): Promise<{ address: string; index: number }> {
    const { index } = await tablesIn(db)
      .insertInto('deposit_index_counters')
      .values({ scheme: 'evm', next_index: 1 })
      .onConflict((oc) => oc.column('scheme').doUpdateSet((eb) => ({ next_index: eb('deposit_index_counters.next_index', '+', 1) })))
      .returning((eb) => eb('next_index', '-', 1).as('index'))
      .executeTakeFirstOrThrow();
    return { address: this.addressAt(index), index };
  }
}
