import { Worker } from 'node:worker_threads';

/**
 * A wake-up this much later than asked is a stall of the machine, not of a process: the
 * watcher's thread does nothing else and runs at a raised priority where the OS allows it.
 * Measured on these VMs (2026-11-28): idle, the longest wake-up delay in 20 s was 18 ms; under
 * a fixed-rate run, delays of 55 and 85 ms came with every request of the next ~400 ms over
 * 40 ms, the bare's and the service's alike (a bare insert's p99 of 279 ms in a run with one).
 */
export const STALL_MS = 25;

/** What the watcher saw over one run. */
export interface Stalls {
  /** The longest delay past a 1 ms sleep (ms). */
  longestMs: number;
  /** Delays of STALL_MS or more. */
  count: number;
}

// The thread says it is watching, sleeps 1 ms at a time on a shared word (Atomics.wait: no
// event loop, no timers of its own to be late) until the word is set, then posts what it saw.
const WATCHER = `
const { parentPort, workerData } = require('node:worker_threads');
const { setPriority } = require('node:os');
try { setPriority(-10); } catch {}
const word = new Int32Array(workerData.stop);
parentPort.postMessage('watching');
let last = performance.now(), longest = 0, count = 0;
while (Atomics.wait(word, 0, 0, 1) === 'timed-out') {
  const now = performance.now();
  const late = now - last - 1;
  last = now;
  if (late > longest) longest = late;
  if (late >= workerData.stallMs) count++;
}
parentPort.postMessage({ longestMs: longest, count });
`;

/**
 * Starts watching for stalls of the machine, and resolves once the watcher runs (a thread's
 * start takes a while on a loaded machine: a stall before it would go unseen); `stop` ends the
 * watch and says what it saw. A bench run during which the whole machine froze for 85 ms
 * measures the hypervisor in its latencies, and the rounds (lib/rounds.ts) prefer a run
 * without one.
 */
export async function watchStalls(): Promise<{ stop(): Promise<Stalls> }> {
  const stop = new SharedArrayBuffer(4);
  const worker = new Worker(WATCHER, { eval: true, workerData: { stop, stallMs: STALL_MS } });
  const message = <T>() =>
    new Promise<T>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  await message(); // 'watching'
  // Its one other message, posted only once `stop` sets the word.
  const seen = message<Stalls>();
  return {
    async stop() {
      const word = new Int32Array(stop);
      Atomics.store(word, 0, 1);
      Atomics.notify(word, 0);
      const stalls = await seen;
      await worker.terminate();
      return stalls;
    },
  };
}
