import { readFileSync, statSync, type Stats } from 'node:fs';
import { ConfigError } from '@pay/runtime';

/**
 * The hot wallet's key, read from the file PAYOUT_PRIVATE_KEY_FILE names (a Kubernetes Secret
 * mounted into crypto-workers; scripts/stack.sh's devnet key under its state folder). A file,
 * not a variable: an environment variable stays readable in /proc/<pid>/environ for the life of
 * the process and is inherited by whatever it starts, even after process.env forgets it.
 *
 * The file must be readable by its owner alone. The one exception is the shape Kubernetes gives a
 * Secret mounted with defaultMode 0400 into a pod with fsGroup: owned by root, mode 0440, its group
 * the pod's own (this process's group), which is how a non-root process reads it at all.
 * Nothing here ever prints what the file holds. A file that does not exist is no key: null.
 */
export function readPayoutKeyFile(file: string): `0x${string}` | null {
  const fail = (what: string) => {
    throw new ConfigError([`PAYOUT_PRIVATE_KEY_FILE ${file} ${what}`]);
  };
  let stat: Stats;
  try {
    stat = statSync(file);
  } catch (err) {
    // No file is no key (Kubernetes' optional Secret not created, or removed to stop payouts):
    // live withdrawals are then refused, never failed after signing. Anything else is a fault.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return fail(`cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): point it at the file holding the hot wallet's key`);
  }
  if (!stat.isFile()) return fail('is not a file: point it at the file holding the hot wallet’s key');
  const problem = permissionProblem(stat);
  if (problem) return fail(problem);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return fail(
      `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): it must be readable by the user this process runs as (Kubernetes: the pod's securityContext.fsGroup equal to its runAsGroup)`,
    );
  }
  try {
    return parsePayoutKey(text);
  } catch (err) {
    return fail(`does not hold a key: ${(err as Error).message}`);
  }
}

/** Why a key file with these permissions is refused, or null. */
function permissionProblem(stat: Stats): string | null {
  const mode = stat.mode & 0o777;
  const octal = `0${mode.toString(8).padStart(3, '0')}`;
  const fix = 'chmod 600 it (readable by its owner alone), or mount it with defaultMode 0400 in Kubernetes';
  if (mode & 0o007) return `is open to every user of this machine (mode ${octal}): ${fix}`;
  if (mode & 0o070) {
    const kubernetesMount = (mode & 0o070) === 0o040 && stat.uid !== process.getuid?.() && stat.gid === process.getgid?.();
    if (!kubernetesMount) return `is open to its group (mode ${octal}): ${fix}`;
  }
  return null;
}

/** 32 bytes of hex, 0x optional, surrounding whitespace (a file's final newline) ignored. */
export function parsePayoutKey(key: string): `0x${string}` {
  const hex = key.trim().replace(/^0x/, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error('the hot wallet’s key must be 32 bytes of hex (64 digits, 0x optional)');
  return `0x${hex}`;
}
