import { createHash } from 'node:crypto';
import { addressProblem, generateAddress, isEvmAddress, isTronAddress, toChecksumAddress } from './addresses';

// Real-world addresses, published in the networks' own documentation and token contracts.
const TRON_VALID = [
  'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', // USDT TRC-20 contract
  'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
  'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8', // USDC TRC-20 contract
];
const EVM_VALID = [
  '0xdAC17F958D2ee523a2206206994597C13D831ec7', // USDT ERC-20
  '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', // USDC ERC-20
  '0x55d398326f99059fF775485246999027B3197955', // USDT BEP-20
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', // EIP-55 test vector
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', // EIP-55 test vector
  '0xdac17f958d2ee523a2206206994597c13d831ec7', // all lower-case: no checksum to check
];

describe('Tron addresses', () => {
  it.each(TRON_VALID)('accepts %s', (a) => expect(isTronAddress(a)).toBe(true));

  it('refuses a wrong prefix, a bad checksum, a wrong length and a non-base58 character', () => {
    expect(isTronAddress('AR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBe(false);
    expect(isTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u')).toBe(false); // last char changed
    expect(isTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6')).toBe(false);
    expect(isTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6tt')).toBe(false);
    expect(isTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj0t')).toBe(false); // 0 is not base58
    expect(addressProblem('Tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u')).toMatch(/checksum/);
    expect(addressProblem('Tron', '0xdAC17F958D2ee523a2206206994597C13D831ec7')).toMatch(/starts with T/);
  });

  it('refuses a valid Base58Check string of another version byte', () => {
    // A Bitcoin address is valid Base58Check but version 0x00.
    expect(isTronAddress('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).toBe(false);
  });
});

describe('EVM addresses', () => {
  it.each(EVM_VALID)('accepts %s', (a) => expect(isEvmAddress(a)).toBe(true));

  it('refuses a broken EIP-55 case, a wrong length, a missing 0x and non-hex', () => {
    expect(isEvmAddress('0xdAC17F958D2ee523a2206206994597C13D831eC7')).toBe(false); // one letter's case flipped
    expect(isEvmAddress('0xdAC17F958D2ee523a2206206994597C13D831e')).toBe(false);
    expect(isEvmAddress('dAC17F958D2ee523a2206206994597C13D831ec7')).toBe(false);
    expect(isEvmAddress('0xgAC17F958D2ee523a2206206994597C13D831ec7')).toBe(false);
    expect(addressProblem('Ethereum', '0xdAC17F958D2ee523a2206206994597C13D831eC7')).toMatch(/EIP-55/);
  });

  it('computes the EIP-55 checksum of the specification vectors', () => {
    for (const a of EVM_VALID.slice(0, 5)) expect(toChecksumAddress(a.toLowerCase())).toBe(a);
  });
});

describe('generated deposit addresses', () => {
  it('pass the validators, on every network, every time', () => {
    for (let i = 0; i < 300; i++) {
      const tron = generateAddress('Tron');
      expect(isTronAddress(tron)).toBe(true);
      for (const net of ['Ethereum', 'BSC'] as const) {
        const evm = generateAddress(net);
        expect(isEvmAddress(evm)).toBe(true);
        expect(evm).toBe(toChecksumAddress(evm));
      }
    }
  });

  it('encode Tron as Base58Check with version 0x41 (checked with an independent sha256d)', () => {
    const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
    const addr = generateAddress('Tron');
    let n = 0n;
    for (const c of addr) n = n * 58n + BigInt(alphabet.indexOf(c));
    const bytes = Buffer.from(n.toString(16).padStart(50, '0'), 'hex');
    expect(bytes.length).toBe(25);
    expect(bytes[0]).toBe(0x41);
    const sha = (b: Buffer) => createHash('sha256').update(b).digest();
    expect(bytes.subarray(21).equals(sha(sha(bytes.subarray(0, 21))).subarray(0, 4))).toBe(true);
  });
});
