// The spend-limit flag: set when the model API answers that the account's spend limit is reached
// (the user-set limit's 400, or the tier cap's 429 enforced_spend_limit_reached: see
// classify-model-error.ts). Every run on that credential would fail the same way until an operator
// raises the limit, so the API stops admitting new runs (POST /v1/runs answers
// `model_spend_limit_reached`) until the flag expires (BUILDFLEET_SPEND_LIMIT_PAUSE_MS) or an
// admin clears it (POST /v1/admin/spend-limit/clear). Runs admitted before still make their call.
import { createHash } from 'node:crypto';
import type { RedisClient } from '../redis/redis-connection.js';
import { z } from 'zod';
import type { Config } from '../config.js';

/** The flag as stored (JSON, with a PX expiry). */
export const spendLimitFlagSchema = z.object({
  message: z.string(),
  model: z.string(),
  runId: z.string().nullable(),
  requestId: z.string().nullable(),
  setAt: z.string(),
});
export type SpendLimitFlag = z.infer<typeof spendLimitFlagSchema>;

export interface SpendLimitState {
  /** A short, non-secret id of the credential the flag belongs to. */
  keyId: string;
  flag: (SpendLimitFlag & { expiresAt: string }) | null;
}

/** A stable, non-reversible id of the model credential (key + endpoint) this fleet calls with: the
 * spend limit belongs to the account behind it, not to one model or one run. */
export function modelKeyIdOf(config: Config): string {
  const endpoint = config.ANTHROPIC_BASE_URL ?? (config.ANTHROPIC_API_KEY ? 'https://api.anthropic.com' : (config.BUILDFLEET_SIMULATOR_URL ?? 'simulator'));
  return createHash('sha256')
    .update(`${endpoint}\n${config.ANTHROPIC_API_KEY ?? ''}`)
    .digest('hex')
    .slice(0, 16);
}

export class SpendLimitFlagStore {
  readonly keyId: string;
  private readonly key: string;
  private readonly pauseMs: number;

  constructor(
    private readonly redis: RedisClient,
    config: Config,
  ) {
    this.keyId = modelKeyIdOf(config);
    this.key = `${config.BUILDFLEET_PREFIX}:model:spend-limit:${this.keyId}`;
    this.pauseMs = config.BUILDFLEET_SPEND_LIMIT_PAUSE_MS;
  }

  /** Raises the flag (a newer answer replaces the older one and restarts its expiry). */
  async set(flag: Omit<SpendLimitFlag, 'setAt'>): Promise<void> {
    const stored: SpendLimitFlag = { ...flag, setAt: new Date().toISOString() };
    await this.redis.set(this.key, JSON.stringify(stored), 'PX', this.pauseMs);
  }

  /** The flag in force, or null. A value that fails its schema counts as raised, with its raw text
   * as the message: refusing admissions is the safe reading of a corrupted flag. */
  async get(): Promise<SpendLimitState> {
    const [[, raw], [, ttl]] = ((await this.redis.multi().get(this.key).pttl(this.key).exec()) ?? [
      [null, null],
      [null, -2],
    ]) as [[unknown, string | null], [unknown, number]];
    if (raw === null || ttl === -2) return { keyId: this.keyId, flag: null };
    const expiresAt = new Date(Date.now() + Math.max(0, ttl)).toISOString();
    let parsed: SpendLimitFlag;
    try {
      parsed = spendLimitFlagSchema.parse(JSON.parse(raw));
    } catch {
      parsed = { message: raw, model: 'unknown', runId: null, requestId: null, setAt: expiresAt };
    }
    return { keyId: this.keyId, flag: { ...parsed, expiresAt } };
  }

  /** Clears the flag; returns whether one was in force. */
  async clear(): Promise<boolean> {
    return (await this.redis.del(this.key)) === 1;
  }
}
