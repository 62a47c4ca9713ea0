// Creates at most one run per (tenant, Idempotency-Key) within 24 h, however many identical
// requests race. The key is claimed with SET NX of a short-lived "pending" marker that carries the
// body's hash; the winner creates the run and replaces the marker with the run id. Losers with the
// same body wait for that run id and return the same run; a different body is a conflict at once.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { FleetContext } from '../fleet/fleet-context.js';
import type { RunRecord } from '../engine/index.js';
import { apiErrors } from './api-errors.js';
import { canonicalJsonHash } from './canonical-json.js';

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

export interface IdempotentSubmission {
  run: RunRecord;
  /** True when an earlier request with this key created the run. */
  replayed: boolean;
}

/** Runs `submit` once per idempotency key and body; throws ApiError on conflict or timeout. */
export async function submitRunIdempotently({
  fleet,
  tenant,
  idempotencyKey,
  body,
  submit,
  waitForWinnerMs = WAIT_FOR_WINNER_MS,
}: {
  fleet: FleetContext;
  tenant: string;
  idempotencyKey: string;
  body: unknown;
  submit: () => Promise<RunRecord>;
  /** How long a request waits for a concurrent one with the same key to create the run. */
  waitForWinnerMs?: number;
}): Promise<IdempotentSubmission> {
  const key = fleet.store.keys.idempotency(tenant, idempotencyKey);
  const hash = canonicalJsonHash(body);
  const deadline = Date.now() + waitForWinnerMs;
  for (;;) {
    const pending = JSON.stringify({ state: 'pending', hash, claim: randomUUID() } satisfies Marker);
    const claimed = await fleet.redis.set(key, pending, 'EX', PENDING_TTL_SECONDS, 'NX');
    if (claimed === 'OK') {
      let run: RunRecord;
      try {
        run = await submit();
      } catch (error) {
        // Free the key so the client's retry can create the run rather than wait for expiry.
        await fleet.redis.eval(RELEASE_CLAIM, 1, key, pending).catch(() => undefined);
        throw error;
      }
      const created = JSON.stringify({ state: 'created', hash, runId: run.id } satisfies Marker);
      await fleet.redis.set(key, created, 'EX', IDEMPOTENCY_TTL_SECONDS);
      return { run, replayed: false };
    }

    const raw = await fleet.redis.get(key);
    // Gone between our SET and GET (the winner failed and released it, or it expired): claim again.
    if (raw === null) continue;
    const marker = parseMarker(raw);
    // A value this code did not write cannot be proven to match this body.
    if (marker === null || marker.hash !== hash) throw apiErrors.idempotencyKeyConflict();
    if (marker.state === 'created') {
      const run = await fleet.store.getRun(marker.runId);
      if (run) return { run, replayed: true };
      // The run's keys were deleted while the key lived on; nothing to replay.
      throw apiErrors.runNotFound();
    }
    if (Date.now() >= deadline) throw apiErrors.idempotencyKeyInProgress();
    await sleep(POLL_INTERVAL_MS);
  }
}
