// A run's priority for the fleet's shared model-call limiter (src/model/model-rate-limiter.ts):
// `interactive` — someone is waiting for the result — is admitted ahead of `batch`, which may only
// use the capacity above a headroom kept free for interactive calls (docs/admission.md).
import { z } from 'zod';

export const RUN_PRIORITIES = ['interactive', 'batch'] as const;
export type RunPriority = (typeof RUN_PRIORITIES)[number];

/** What a run that names no priority gets: a person submitted it, so it is interactive. */
export const DEFAULT_RUN_PRIORITY: RunPriority = 'interactive';

export const runPrioritySchema = z.enum(RUN_PRIORITIES);
