// The cost experiment, small: one build per mode on the instant profile, through the same code
// path `buildfleet experiment cost` runs (fresh in-process fleet per mode, the simulator over HTTP,
// the suite's Redis). The cached build must read from the cache and cost less input than the
// same build uncached; the log's costs must be the runs' own.
import { describe, expect, it } from 'vitest';
import { formatCostResult, runCostExperiment } from '../../src/cli/experiment-cost.js';
import { testRedisUrl, uniquePrefix } from '../support/redis.js';
import { SUITE_MODEL } from '../support/suite-model.js';

describe('experiment cost', () => {
  it('runs the same build uncached then cached: the cached one reads the cache and pays less input', { timeout: 120_000 }, async () => {
    // A model whose phase changes send a new tier (the next test measures the current generation's layout).
    const result = await runCostExperiment({
      builds: 1,
      model: SUITE_MODEL,
      profile: 'instant',
      seed: 1,
      concurrency: 1,
      timeoutMs: 60_000,
      redisUrl: testRedisUrl(),
      prefix: uniquePrefix('cost-experiment'),
    });
    const { uncached, cached } = result;
    for (const mode of [uncached, cached]) {
      expect(mode.succeeded, mode.mode).toBe(1);
      expect(mode.otherAnswers, mode.mode).toBe(0);
      // What the runs recorded is what the provider's log bills.
      expect(mode.recordedMicroUsd, mode.mode).toBe(mode.totals.totalMicroUsd);
    }
    // The same build both ways: the same turns and the same output.
    expect(cached.turns).toBe(uncached.turns);
    expect(cached.totals.usage.output_tokens).toBe(uncached.totals.usage.output_tokens);

    expect(uncached.totals.usage.cache_read_input_tokens + uncached.totals.usage.cache_write_5m_input_tokens + uncached.totals.usage.cache_write_1h_input_tokens).toBe(0);
    expect(cached.totals.usage.cache_read_input_tokens).toBeGreaterThan(0);
    expect(cached.totals.inputMicroUsd).toBeLessThan(uncached.totals.inputMicroUsd);
    // One build alone shares no tier prefix with another (README: 34.9 %); a summary turn that
    // rewrote the transcript, as before issue #15, measured 47 % — this catches a regression of that size.
    expect(result.inputCostRatio).toBeLessThan(0.45);
    // Each same-prefix turn read what the turn before it cached: no unplanned miss.
    expect(cached.missedRequests).toBe(0);
    expect(cached.breakdown.reduce((sum, row) => sum + row.totals.requests, 0)).toBe(cached.turns);

    const printed = formatCostResult(result);
    expect(printed).toContain('input USD cached / uncached');
    expect(printed).toContain('prefix change building → verifying');
  });

  it('on a model with tool changes the phase changes keep the prefix, and strict tools are measured on and off', { timeout: 180_000 }, async () => {
    const result = await runCostExperiment({
      builds: 1,
      model: 'claude-sonnet-5-5',
      profile: 'instant',
      seed: 1,
      concurrency: 1,
      timeoutMs: 60_000,
      redisUrl: testRedisUrl(),
      prefix: uniquePrefix('cost-experiment-55'),
    });
    expect(result.targetRatio).toBe(0.25);
    expect(result.strictOff).not.toBeNull();
    for (const mode of [result.uncached, result.cached, result.strictOff!]) {
      expect(mode.succeeded, mode.mode).toBe(1);
      expect(mode.tally.verifiedFinishes, mode.mode).toBe(1);
      expect(mode.tally.toolCalls, mode.mode).toBeGreaterThan(5);
      expect(mode.recordedMicroUsd, mode.mode).toBe(mode.totals.totalMicroUsd);
    }
    // Tools and system never change: no request after the first is a prefix change but the one
    // where tool_choice leaves the forced plan.
    expect(result.cached.breakdown.filter((row) => row.kind === 'prefix-change').map((row) => row.label)).not.toContain('prefix change building → verifying');
    expect(result.cached.missedRequests).toBe(0);
    const printed = formatCostResult(result);
    expect(printed).toContain('caching on, strict off');
    expect(printed).toContain('invalid tool input (calls)');
  });
});
