// The small fuzz run of `npm test` (the full one is `npm run fuzz`): 500 hostile requests against
// an in-process API and 2,000 random tool inputs. No 5xx, no crash. FUZZ_SEED replays a seed.
import { describe, expect, it } from 'vitest';
import { testRedisUrl } from '../support/redis.js';
import { runApiFuzz } from './api-fuzzer.js';
import { fuzzToolInputs } from './fuzz-tool-inputs.js';

const seed = Number(process.env.FUZZ_SEED ?? 20_260_109);

describe(`fuzz (seed ${seed})`, () => {
  it('answers 500 hostile requests without a 5xx or a crash', async () => {
    const report = await runApiFuzz({ redisUrl: testRedisUrl(), requests: 500, seed, maxDurationMs: 60_000, concurrency: 8 });
    expect(report.crashes).toEqual([]);
    expect(report.serverErrors).toEqual([]);
    expect(report.byStatusClass['5xx']).toBe(0);
    expect(report.requests).toBe(500);
    expect(report.byStatusClass['4xx']).toBeGreaterThan(250);
  }, 90_000);

  it('validates 2,000 random tool inputs without throwing anything but a ZodError', () => {
    const report = fuzzToolInputs({ count: 2_000, seed });
    expect(report.crashes).toEqual([]);
    expect(report.accepted).toBeGreaterThan(0);
    expect(report.rejected).toBeGreaterThan(0);
  });
});
