import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { EVENT_LOOP_DELAY_BUCKETS, observeEventLoopDelay } from './event-loop-delay-sampler.js';

async function bucketCounts(registry: Registry): Promise<Map<string, number>> {
  const [metric] = await registry.getMetricsAsJSON();
  const counts = new Map<string, number>();
  // A histogram's JSON values carry metricName (…_bucket, …_sum, …_count) beside the labels.
  for (const value of metric!.values as Array<{ metricName?: string; labels: Record<string, unknown>; value: number }>) {
    if (value.metricName?.endsWith('_bucket')) counts.set(String(value.labels.le), value.value);
  }
  return counts;
}

describe('event-loop delay sampler', () => {
  it('records a blocked loop as one late sample in the bucket of its length, and stops when asked', async () => {
    const registry = new Registry();
    const histogram = new Histogram({ name: 'loop_delay_seconds', help: 'test', buckets: EVENT_LOOP_DELAY_BUCKETS, registers: [registry] });
    const stop = observeEventLoopDelay(histogram);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const blockedUntil = performance.now() + 150;
    while (performance.now() < blockedUntil) {
      // Busy: no timer can fire.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    stop();
    const counts = await bucketCounts(registry);
    // The stall is at least 150 ms − the 10 ms interval: above the 0.1 s bucket, whatever the load.
    expect(counts.get('+Inf')! - counts.get('0.1')!).toBeGreaterThanOrEqual(1);
    const total = counts.get('+Inf')!;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await bucketCounts(registry)).get('+Inf')).toBe(total);
  });
});
