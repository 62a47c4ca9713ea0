import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConcurrencyGovernor, nextConcurrency } from './concurrency-governor.js';

const base = { ceiling: 1000, floor: 4, targetDelayMs: 40 };

describe('nextConcurrency', () => {
  it('cuts by a quarter when the loop delay is over the target, never below the floor', () => {
    expect(nextConcurrency({ ...base, current: 400, delayP99Ms: 41, peakActive: 400 })).toBe(300);
    expect(nextConcurrency({ ...base, current: 5, delayP99Ms: 500, peakActive: 5 })).toBe(4);
    expect(nextConcurrency({ ...base, ceiling: 2, current: 2, delayP99Ms: 500, peakActive: 2 })).toBe(2);
  });

  it('raises by a quarter only when the worker used all it had and the delay is well under the target', () => {
    expect(nextConcurrency({ ...base, current: 400, delayP99Ms: 12, peakActive: 400 })).toBe(500);
    expect(nextConcurrency({ ...base, current: 400, delayP99Ms: 12, peakActive: 399 })).toBe(400);
    expect(nextConcurrency({ ...base, current: 400, delayP99Ms: 30, peakActive: 400 })).toBe(400);
    expect(nextConcurrency({ ...base, current: 900, delayP99Ms: 12, peakActive: 900 })).toBe(1000);
    expect(nextConcurrency({ ...base, current: 1, delayP99Ms: 12, peakActive: 1 })).toBe(2);
  });
});

describe('ConcurrencyGovernor', () => {
  it('starts at the ceiling and never moves when it is off', async () => {
    const worker = { concurrency: 0 };
    const governor = new ConcurrencyGovernor({ ceiling: 300, targetDelayMs: 0, intervalMs: 20 });
    governor.attach(worker);
    const spin = Date.now();
    while (Date.now() - spin < 150);
    await sleep(60);
    expect(worker.concurrency).toBe(300);
    governor.stop();
  });

  it('takes fewer jobs while the event loop is blocked, and more again once it is free and busy', async () => {
    const worker = { concurrency: 0 };
    const changes: number[] = [];
    const governor = new ConcurrencyGovernor({ ceiling: 256, targetDelayMs: 40, initial: 256, floor: 4, intervalMs: 50, onChange: (change) => changes.push(change.to) });
    governor.attach(worker);
    expect(worker.concurrency).toBe(256);
    // Block the loop for 120 ms at a time until the governor has cut down to its floor.
    for (let round = 0; round < 200 && worker.concurrency > 4; round += 1) {
      const spin = Date.now();
      while (Date.now() - spin < 120);
      await sleep(60);
    }
    expect(worker.concurrency).toBe(4);
    expect(changes[0]).toBe(192);
    governor.stop();

    // A generous target (no load on a test machine reaches it) and a worker using all it has.
    const relaxed = new ConcurrencyGovernor({ ceiling: 64, targetDelayMs: 5_000, initial: 4, floor: 4, intervalMs: 30 });
    const idleWorker = { concurrency: 0 };
    relaxed.attach(idleWorker);
    const busy = () => Array.from({ length: idleWorker.concurrency }, () => relaxed.track(() => sleep(40)));
    for (let round = 0; round < 200 && idleWorker.concurrency < 64; round += 1) await Promise.all(busy());
    expect(idleWorker.concurrency).toBe(64);
    relaxed.stop();
  });
});
