import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createLogger, stuckParts } from '@pay/runtime';
import { eventually } from '@pay/testing';
import { isStuck, watchProgress } from './stall';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('isStuck', () => {
  const look = (waiting: number, started: number, slotFree = true) => ({ waiting, started, slotFree });

  it('is stuck when jobs waited at both looks with a slot free at both and none started between', () => {
    expect(isStuck(look(3, 7), look(5, 7))).toBe(true);
  });

  it('is not stuck on a first look, when a job started, when nothing waited at either look, or when every slot was busy at either', () => {
    expect(isStuck(null, look(5, 7))).toBe(false);
    expect(isStuck(look(3, 7), look(5, 8))).toBe(false);
    expect(isStuck(look(0, 7), look(5, 7))).toBe(false); // the job arrived since the last look
    expect(isStuck(look(3, 7), look(0, 7))).toBe(false);
    expect(isStuck(look(3, 7, false), look(5, 7))).toBe(false); // slots busy: the one free now may have just freed
    expect(isStuck(look(3, 7), look(5, 7, false))).toBe(false);
  });
});

describe('watchProgress', () => {
  let connection: Redis;
  let queue: Queue;
  let prefix: string;
  const name = 'stall-test';
  beforeEach(() => {
    connection = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
    prefix = `test-${randomUUID()}`;
    queue = new Queue(name, { connection, prefix });
  });
  afterEach(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    connection.disconnect();
  });

  /** A logger whose lines the test reads. */
  const recorder = () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger('test', 'info', { write: (line: string) => void lines.push(JSON.parse(line)) });
    return { lines, logger };
  };

  it('marks a worker that leaves jobs waiting with its slots free stuck (/healthz asks for a restart), says where it waits, and clears it once it takes jobs', async () => {
    let started = 0;
    // A real worker that does not fetch (never run): jobs wait, its slots stay free.
    const worker = new Worker(name, async () => void started++, { connection, prefix, autorun: false, concurrency: 2 });
    const { lines, logger } = recorder();
    const stop = watchProgress({ worker, name, counts: queue, started: () => started, running: () => 0, concurrency: 2, logger, intervalMs: 100 });
    try {
      await queue.addBulk([{ name, data: { n: 1 } }, { name, data: { n: 2 } }]);
      await eventually(async () => expect(stuckParts()).toEqual({ [`queue worker ${name}`]: expect.stringMatching(/^2 jobs waiting, none started in 0.1 s with a slot free$/) }), 5000, 50);
      const stuck = lines.filter((l) => l.msg === 'queue worker stuck: jobs waiting, a slot free, none started since the last look; /healthz asks for a restart');
      expect(stuck).toHaveLength(1); // once, not at every look
      expect(stuck[0]).toMatchObject({ level: 'error', queue: name, waiting: 2, concurrency: 2, worker: { running: false, blocking: false } });

      void worker.run();
      await eventually(async () => expect(stuckParts()).toEqual({}), 5000, 50);
      expect(started).toBe(2);
      expect(lines.map((l) => l.msg)).toContain('queue worker taking jobs again');
    } finally {
      stop();
      await worker.close();
    }
    expect(stuckParts()).toEqual({});
  });

  it('never marks a busy worker that keeps starting jobs, a paused one, or one whose queue is empty', async () => {
    let started = 0;
    let running = 0;
    const worker = new Worker(
      name,
      async () => {
        started++;
        running++;
        await pause(30);
        running--;
      },
      { connection, prefix, concurrency: 2 },
    );
    const { lines, logger } = recorder();
    const stop = watchProgress({ worker, name, counts: queue, started: () => started, running: () => running, concurrency: 2, logger, intervalMs: 50 });
    const seen: Record<string, string>[] = [];
    const watching = setInterval(() => seen.push(stuckParts()), 10);
    try {
      // Busy: 60 jobs of 30 ms on 2 slots, jobs waiting at every look.
      await queue.addBulk(Array.from({ length: 60 }, (_, n) => ({ name, data: { n } })));
      await eventually(async () => expect(started).toBe(60), 10_000, 20);
      // Empty: nothing waits.
      await pause(300);
      // Paused: jobs wait and none starts, by the operator's choice.
      await worker.pause();
      await queue.addBulk([{ name, data: { n: 61 } }]);
      await pause(300);
      expect(seen.length).toBeGreaterThan(50);
      expect(seen.filter((s) => Object.keys(s).length > 0)).toEqual([]);
      expect(lines).toEqual([]);
    } finally {
      clearInterval(watching);
      stop();
      await worker.close();
    }
  });
});
