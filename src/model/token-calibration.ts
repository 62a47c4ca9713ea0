// The measured token ratio of each (provider, model) in one model worker: how many tokens the
// provider's count_tokens (docs build-with-claude/token-counting) says this fleet's prompts make
// per characters / 4, so the prompt estimate (estimate-prompt-tokens.ts) follows the model's real
// tokenizer on the fleet's real prompts (JSON tool schemas, code, HTML) and not only the documented
// "approximately 30 percent more" of the newer tokenizer.
//
// Calibrated now and then rather than counted before every call: count_tokens is a round trip
// before the call (a turn would wait for two answers instead of one), and it has its own
// requests-per-minute limit (docs: "free but rate-limited"), which one count per call would spend
// at the fleet's own call rate. A ratio measured on a model's first call in this process and then
// refreshed every BUILDFLEET_TOKEN_CALIBRATION_CALLS calls or BUILDFLEET_TOKEN_CALIBRATION_INTERVAL_MS
// keeps the estimate within a few percent for one extra request in a hundred. A count that fails
// (429, 400, a provider without the endpoint) leaves the last ratio, or the documented one, in
// force: it never fails a turn. The measured ratio only ever raises the estimate above the
// documented floor (domain/estimate-text-tokens.ts estimateRatio).
import { measuredTokenRatio } from '../domain/estimate-text-tokens.js';

export interface TokenCalibrationSettings {
  /** Measure again after this many calls of the (provider, model); 0 = never measure. */
  everyCalls: number;
  /** … or when the last measurement is older than this (ms). */
  intervalMs: number;
  /** Tests only: the clock (ms). */
  clock?: () => number;
}

interface Entry {
  ratio: number | null;
  /** A count was asked for, whatever its answer. */
  counted: boolean;
  callsSince: number;
  measuredAt: number;
  measuring: boolean;
}

/** One worker's measured ratios, keyed by provider name and model. */
export class TokenCalibration {
  private readonly entries = new Map<string, Entry>();
  private readonly clock: () => number;

  constructor(private readonly settings: TokenCalibrationSettings) {
    this.clock = settings.clock ?? Date.now;
  }

  /** The ratio for this call's estimate: measured first with `count` when one is due (the first
   * call of the key, then every `everyCalls` calls or `intervalMs`), else the last one measured;
   * null when none was. `count` resolves to the provider's token count of this call's prompt,
   * whose estimate measures `characters` (estimate-prompt-tokens.ts promptCharacters). A count
   * that throws or answers nonsense is reported to `onFailure` and changes nothing. */
  async ratio({
    provider,
    model,
    characters,
    count,
    onFailure,
  }: {
    provider: string;
    model: string;
    characters: number;
    /** null: the provider cannot count (the calibration is off for it). */
    count: (() => Promise<number>) | null;
    onFailure: (error: unknown) => void;
  }): Promise<number | null> {
    if (count === null || this.settings.everyCalls <= 0) return null;
    const key = `${provider}\u0000${model}`;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { ratio: null, counted: false, callsSince: 0, measuredAt: 0, measuring: false };
      this.entries.set(key, entry);
    }
    entry.callsSince += 1;
    const due = !entry.counted || entry.callsSince >= this.settings.everyCalls || this.clock() - entry.measuredAt >= this.settings.intervalMs;
    // One count at a time per key: the calls that start meanwhile use the ratio there is.
    if (!due || entry.measuring) return entry.ratio;
    entry.measuring = true;
    try {
      const countedTokens = await count();
      const measured = measuredTokenRatio({ countedTokens, characters });
      if (measured === null) throw new Error(`count_tokens answered ${String(countedTokens)} tokens for ${characters} characters`);
      entry.ratio = measured;
    } catch (error) {
      onFailure(error);
    } finally {
      // A failed count waits its turn like a good one: a rate-limited endpoint is not asked again at once.
      entry.counted = true;
      entry.callsSince = 0;
      entry.measuredAt = this.clock();
      entry.measuring = false;
    }
    return entry.ratio;
  }

  /** The last measured ratio of (provider, model), for tests and diagnostics; null when none. */
  measured(provider: string, model: string): number | null {
    return this.entries.get(`${provider}\u0000${model}`)?.ratio ?? null;
  }
}
