// The idempotency system: at most one run per (tenant, Idempotency-Key) within 24 h, however many
// identical requests race. The key (`keys.idempotency`) is claimed with SET NX of a short-lived
// "pending" marker that carries the body's hash; the winner creates the run and replaces the marker
// with the run id. Losers with the same body wait for that run id and get the same run; a different
// body is a conflict at once. The API hashes the body and maps a refusal to its HTTP error
// (src/api/submit-run-idempotently.ts).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { RunRecord } from '../run-types.js';
import { type EngineContext, EngineSystem } from './engine-system.js';
import type { LifecycleSystem } from './lifecycle-system.js';

const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
// Creating a run takes milliseconds; a pending marker older than this belongs to a process that
// died mid-request, and expiring it lets the client's retry create the run instead of waiting 24 h.
const PENDING_TTL_SECONDS = 30;
const WAIT_FOR_WINNER_MS = 5_000;
const POLL_INTERVAL_MS = 25;

const markerSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('pending'), hash: z.string(), claim: z.string() }),
  z.object({ state: z.literal('created'), hash: z.string(), runId: z.string() }),
]);
type Marker = z.infer<typeof markerSchema>;

/**
 * releaseClaim
 * KEYS[1] idempotency key. ARGV[1] the pending marker this request wrote.
 * Deletes the key only while it still holds that marker; returns 1 when deleted, else 0.
 */
const RELEASE_CLAIM = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

function parseMarker(raw: string): Marker | null {
  try {
    const parsed = markerSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** What an idempotent submission came to: the run (created now, or by an earlier request with the
 * key: `replayed`), or why there is none — the key was used with another body (`conflict`), the
 * request that holds it did not finish in time (`in_progress`), or the run it created is gone. */
export type IdempotentSubmission =
  { kind: 'submitted'; run: RunRecord; replayed: boolean } | { kind: 'conflict' } | { kind: 'in_progress' } | { kind: 'run_missing' };

export class IdempotencySystem extends EngineSystem {
  constructor(
    context: EngineContext,
    private readonly lifecycle: LifecycleSystem,
  ) {
    super(context);
  }

  /** Runs `submit` once per idempotency key and body hash. A failing `submit` frees the key (so the
   * client's retry can create the run rather than wait for expiry) and throws. */
  async submitIdempotently({
    tenant,
    idempotencyKey,
    bodyHash,
    submit,
    waitForWinnerMs = WAIT_FOR_WINNER_MS,
  }: {
    tenant: string;
    idempotencyKey: string;
    bodyHash: string;
    submit: () => Promise<RunRecord>;
    /** How long a request waits for a concurrent one with the same key to create the run. */
    waitForWinnerMs?: number;
  }): Promise<IdempotentSubmission> {
    const key = this.keys.idempotency(tenant, idempotencyKey);
    const hash = bodyHash;
    const deadline = Date.now() + waitForWinnerMs;
    for (;;) {
      const pending = JSON.stringify({ state: 'pending', hash, claim: randomUUID() } satisfies Marker);
      const claimed = await this.redis.set(key, pending, 'EX', PENDING_TTL_SECONDS, 'NX');
      if (claimed === 'OK') {
        let run: RunRecord;
        try {
          run = await submit();
        } catch (error) {
          // Free the key so the client's retry can create the run rather than wait for expiry.
          await this.redis.eval(RELEASE_CLAIM, 1, key, pending).catch(() => undefined);
          throw error;
        }
        const created = JSON.stringify({ state: 'created', hash, runId: run.id } satisfies Marker);
        await this.redis.set(key, created, 'EX', IDEMPOTENCY_TTL_SECONDS);
        return { kind: 'submitted', run, replayed: false };
      }

      const raw = await this.redis.get(key);
      // Gone between our SET and GET (the winner failed and released it, or it expired): claim again.
      if (raw === null) continue;
      const marker = parseMarker(raw);
      // A value this code did not write cannot be proven to match this body.
      if (marker === null || marker.hash !== hash) return { kind: 'conflict' };
      if (marker.state === 'created') {
        const run = await this.lifecycle.getRun(marker.runId);
        if (run) return { kind: 'submitted', run, replayed: true };
        // The run's keys were deleted while the key lived on; nothing to replay.
        return { kind: 'run_missing' };
      }
      if (Date.now() >= deadline) return { kind: 'in_progress' };
      await sleep(POLL_INTERVAL_MS);
    }
  }
}
