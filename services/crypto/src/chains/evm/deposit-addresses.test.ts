import { HDKey } from '@scure/bip32';
import { privateKeyToAccount } from 'viem/accounts';
import { DepositAddresses } from './deposit-addresses';

describe('deposit addresses', () => {
  const root = HDKey.fromMasterSeed(Buffer.alloc(32, 7)).derive("m/44'/60'/0'");

  it('are the keys at xpub/0/index, the same a wallet holding the private key derives', () => {
    const addresses = new DepositAddresses(root.publicExtendedKey);
    const a = addresses.addressAt(5);
    expect(a).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(addresses.addressAt(5)).toBe(a);
    expect(addresses.addressAt(6)).not.toBe(a);
    const key = root.deriveChild(0).deriveChild(5).privateKey!;
    expect(privateKeyToAccount(`0x${Buffer.from(key).toString('hex')}`).address).toBe(a);
  });

  it('refuse an extended private key: the service holds no deposit keys', () => {
    expect(() => new DepositAddresses(root.privateExtendedKey)).toThrow(/public key/);
  });
});
