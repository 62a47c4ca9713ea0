// How long the simulated model takes and how much it writes. Generation time = time to first token
// + output tokens / tokens per second (thinking tokens are output tokens and stream at the same
// rate). A stream paces its deltas over that time; a JSON answer arrives after all of it.
//
//   instant    0 ms, unlimited rate, the small site: what unit and integration tests use (default)
//   realistic  TTFT 500-1500 ms, 50-80 output tokens/s, realistic site sizes. An assumption from
//              public measurements of Claude Sonnet-class models (Anthropic publishes no numbers;
//              independent benchmarks such as artificialanalysis.ai report roughly 0.6-1.5 s to
//              first token and 50-80 tokens/s); the 8,000-token page then takes ~100-160 s.
//   fast       realistic sizes at 10x the speed: TTFT 50-150 ms, 500-800 tokens/s (demos)
//
// Within a profile's range the draw is deterministic from the seed and the transcript.
import { deterministicFraction } from './deterministic-random.js';
import type { SiteSize } from './site-plan.js';

export const TIMING_PROFILE_NAMES = ['instant', 'realistic', 'fast'] as const;
export type TimingProfileName = (typeof TIMING_PROFILE_NAMES)[number];

interface Range {
  min: number;
  max: number;
}

export interface TimingProfile {
  name: TimingProfileName;
  ttftMs: Range;
  /** Infinity: no time per token. */
  tokensPerSecond: Range;
  siteSize: SiteSize;
}

export const TIMING_PROFILES: Readonly<Record<TimingProfileName, TimingProfile>> = {
  instant: { name: 'instant', ttftMs: { min: 0, max: 0 }, tokensPerSecond: { min: Infinity, max: Infinity }, siteSize: 'small' },
  realistic: { name: 'realistic', ttftMs: { min: 500, max: 1500 }, tokensPerSecond: { min: 50, max: 80 }, siteSize: 'realistic' },
  fast: { name: 'fast', ttftMs: { min: 50, max: 150 }, tokensPerSecond: { min: 500, max: 800 }, siteSize: 'realistic' },
};

export function isTimingProfileName(value: string): value is TimingProfileName {
  return (TIMING_PROFILE_NAMES as readonly string[]).includes(value);
}

/** The timing of one answer. */
export interface AnswerTiming {
  ttftMs: number;
  tokensPerSecond: number;
}

function pick(range: Range, fraction: number): number {
  return range.min === range.max ? range.min : range.min + fraction * (range.max - range.min);
}

/** Draws one answer's timing from the profile; explicit overrides win. */
export function drawAnswerTiming({
  profile,
  ttftMs,
  tokensPerSecond,
  seed,
  transcriptHash,
}: {
  profile: TimingProfile;
  ttftMs?: number;
  tokensPerSecond?: number;
  seed: number;
  transcriptHash: string;
}): AnswerTiming {
  return {
    ttftMs: ttftMs ?? pick(profile.ttftMs, deterministicFraction({ parts: [seed, transcriptHash, 'ttft'] })),
    tokensPerSecond: tokensPerSecond ?? pick(profile.tokensPerSecond, deterministicFraction({ parts: [seed, transcriptHash, 'rate'] })),
  };
}

/** Milliseconds after the first token until `outputTokens` have been written. */
export function millisecondsForTokens({ timing, outputTokens }: { timing: AnswerTiming; outputTokens: number }): number {
  if (!Number.isFinite(timing.tokensPerSecond) || timing.tokensPerSecond <= 0) return 0;
  return (outputTokens / timing.tokensPerSecond) * 1000;
}

/** Whole generation time: time to first token + output tokens at the rate. */
export function generationTimeMs({ timing, outputTokens }: { timing: AnswerTiming; outputTokens: number }): number {
  return timing.ttftMs + millisecondsForTokens({ timing, outputTokens });
}
