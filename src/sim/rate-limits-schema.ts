// The body of `PUT /_sim/rate-limits` and the `--rate-limits` flag: some of the per-minute limits.
import { z } from 'zod';

export const rateLimitsSchema = z
  .strictObject({
    requestsPerMinute: z.int().min(1).optional(),
    inputTokensPerMinute: z.int().min(1).optional(),
    outputTokensPerMinute: z.int().min(1).optional(),
  })
  .transform((limits) => Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined)) as Partial<Record<keyof typeof limits, number>>);
