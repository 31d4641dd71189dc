import { HttpRequestError } from 'viem';
import { ConfigError } from '@pay/runtime';
import type { CryptoConfig } from '../../config';
import { configuredEvmNetworks } from './config';
import { parseRpcUrls, redactRpcUrl, scrubError } from './rpc';

describe('RPC URLs', () => {
  it('are named by scheme and host only: the path, query and credentials hold API keys', () => {
    expect(redactRpcUrl('https://mainnet.infura.io/v3/0123456789abcdef')).toBe('https://mainnet.infura.io/…');
    expect(redactRpcUrl('https://user:pw@node.example:8443/?key=abc')).toBe('https://node.example:8443/…');
    expect(redactRpcUrl('http://127.0.0.1:8545')).toBe('http://127.0.0.1:8545');
  });

  it('take a comma-separated list; plain http:// only on loopback, with a message naming the variable', () => {
    expect(parseRpcUrls('EVM_RPC_URL_BSC', 'https://a.example/k1, https://b.example/k2')).toEqual(['https://a.example/k1', 'https://b.example/k2']);
    expect(parseRpcUrls('EVM_RPC_URL_BSC', 'http://127.0.0.1:8545,http://localhost:8546')).toHaveLength(2);
    const refused = () => parseRpcUrls('EVM_RPC_URL_ETHEREUM', 'https://a.example/k1,http://node.example/secret-key');
    expect(refused).toThrow(ConfigError);
    expect(refused).toThrow(/EVM_RPC_URL_ETHEREUM: URL 2 \(http:\/\/node\.example\/…\) must be https:\/\//);
    expect(refused).not.toThrow(/secret-key/);
    expect(() => parseRpcUrls('EVM_RPC_URL_BSC', ' , ')).toThrow(/EVM_RPC_URL_BSC/);
    expect(() => parseRpcUrls('EVM_RPC_URL_BSC', 'https://a.example/k,https://a.example/k')).toThrow(/twice/);
  });

  it('a network configured with plain http:// off loopback does not start, and the message names the variable', () => {
    const config = { EVM_RPC_URL_BSC: 'http://bsc-node.example/KEY', USDT_CONTRACT_BSC: '0x55d398326f99059fF775485246999027B3197955', DEPOSIT_XPUB: 'xpub' } as unknown as CryptoConfig;
    expect(() => configuredEvmNetworks(config)).toThrow(/EVM_RPC_URL_BSC: URL 1 \(http:\/\/bsc-node\.example\/…\) must be https/);
    expect(configuredEvmNetworks({ ...config, EVM_RPC_URL_BSC: 'https://a.example/1,https://b.example/2' })[0]).toMatchObject({
      network: 'BSC',
      rpcUrls: ['https://a.example/1', 'https://b.example/2'],
      tokens: [{ currency: 'USDT_BEP20' }],
    });
  });

  it("scrubs viem's error text (message, stack, details, url, causes) and keeps the error's class and status", () => {
    const url = 'https://eth.example/v2/SECRETKEY123';
    const inner = new HttpRequestError({ url, status: 429, body: { method: 'eth_getLogs' }, details: 'Too Many Requests' });
    const outer = new Error(`wrapped: ${inner.message}`, { cause: inner });
    scrubError(outer, url, 'Ethereum https://eth.example/…');
    const all = JSON.stringify([outer.message, outer.stack, inner.message, inner.stack, inner.url, inner.metaMessages, inner.details, inner.shortMessage]);
    expect(all).not.toMatch(/SECRETKEY123/);
    expect(inner.message).toMatch(/Ethereum https:\/\/eth\.example\/…/);
    expect(inner).toBeInstanceOf(HttpRequestError);
    expect(inner.status).toBe(429);
  });
});
