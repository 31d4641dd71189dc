import { readFileSync } from 'node:fs';

/** Kernel clock ticks per second for /proc times (USER_HZ: 100 on every Linux build we run). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system, ms) a process has used so far, from /proc/<pid>/stat; null where
 * there is no /proc. Why: on a 2-core machine shared with other work, req/s and latency move
 * with whatever else runs, but the CPU a process spends per request does not, so CPU per
 * request beside the baseline's is the steadiest figure of what the service's layers cost.
 */
export function cpuMs(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, inside parentheses): utime is the
    // 14th field of the line, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}
