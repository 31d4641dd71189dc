import { chmodSync, chownSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@pay/runtime';
import { readPayoutKeyFile } from './payout-key';

// Real files with real modes: what the workers-only process finds at PAYOUT_PRIVATE_KEY_FILE.
const KEY = `0x${'ab'.repeat(32)}`;
let dir: string;
beforeAll(() => (dir = mkdtempSync(path.join(tmpdir(), 'payout-key-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function keyFile(name: string, mode: number, text = `${KEY}\n`): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  chmodSync(file, mode);
  return file;
}

it('reads a key from a file its owner alone can read (0600, 0400), 0x optional, the final newline ignored', () => {
  expect(readPayoutKeyFile(keyFile('a', 0o600))).toBe(KEY);
  expect(readPayoutKeyFile(keyFile('b', 0o400, `${KEY.slice(2)}\n`))).toBe(KEY);
});

it('follows a symbolic link to the key, as a Kubernetes Secret volume lays its files out (..data/KEY)', () => {
  const target = keyFile('c', 0o400);
  const link = path.join(dir, 'link');
  symlinkSync(target, link);
  expect(readPayoutKeyFile(link)).toBe(KEY);
});

it('refuses a file its group or every user can read, saying how to fix it', () => {
  const open = keyFile('d', 0o644);
  expect(() => readPayoutKeyFile(open)).toThrow(ConfigError);
  expect(() => readPayoutKeyFile(open)).toThrow(`PAYOUT_PRIVATE_KEY_FILE ${open} is open to every user of this machine (mode 0644): chmod 600 it`);
  const group = keyFile('e', 0o640);
  expect(() => readPayoutKeyFile(group)).toThrow(`PAYOUT_PRIVATE_KEY_FILE ${group} is open to its group (mode 0640): chmod 600 it`);
  expect(() => readPayoutKeyFile(keyFile('f', 0o602))).toThrow(/is open to every user of this machine \(mode 0602\)/);
});

it('takes a missing file for no key (the optional Secret not there: live withdrawals are refused)', () => {
  expect(readPayoutKeyFile(path.join(dir, 'missing'))).toBeNull();
});

it('refuses a folder, a file it may not read, and a file that holds no key, never printing what it holds', () => {
  expect(() => readPayoutKeyFile(path.join(keyFile('k', 0o600), 'below'))).toThrow(/below cannot be read \(ENOTDIR\)/);
  expect(() => readPayoutKeyFile(dir)).toThrow(/is not a file/);
  const secretish = 'not-a-key-but-secret-material';
  let message = '';
  try {
    readPayoutKeyFile(keyFile('g', 0o600, secretish));
  } catch (err) {
    message = (err as Error).message;
  }
  expect(message).toMatch(/does not hold a key: the hot wallet’s key must be 32 bytes of hex/);
  expect(message).not.toContain(secretish);
});

// Kubernetes mounts a Secret with defaultMode 0400 into a pod with fsGroup as root:<fsGroup>, 0440:
// group-readable, by the pod's own group only. Making such a file takes root (chown).
const asRoot = process.getuid?.() === 0 ? it : it.skip;
asRoot('accepts the Kubernetes fsGroup mount (another owner, this process’s group, 0440), and no other group-readable file', () => {
  const mounted = keyFile('h', 0o440);
  chownSync(mounted, 65534, process.getgid!());
  expect(readPayoutKeyFile(mounted)).toBe(KEY);
  const otherGroup = keyFile('i', 0o440);
  chownSync(otherGroup, 65534, process.getgid!() + 1);
  expect(() => readPayoutKeyFile(otherGroup)).toThrow(/is open to its group \(mode 0440\)/);
  const groupWritable = keyFile('j', 0o460);
  chownSync(groupWritable, 65534, process.getgid!());
  expect(() => readPayoutKeyFile(groupWritable)).toThrow(/is open to its group \(mode 0460\)/);
});
