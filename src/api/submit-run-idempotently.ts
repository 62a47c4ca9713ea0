// Creates at most one run per (tenant, Idempotency-Key) within 24 h, however many identical
// requests race: the engine keeps the key's state (src/engine/systems/idempotency-system.ts); the
// API hashes the body and answers a refusal with its HTTP error.
import type { FleetContext } from '../fleet/fleet-context.js';
import type { RunRecord } from '../engine/index.js';
import { assertNever } from '../domain/assert-never.js';
import { apiErrors } from './api-errors.js';
import { canonicalJsonHash } from './canonical-json.js';

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
  waitForWinnerMs,
}: {
  fleet: FleetContext;
  tenant: string;
  idempotencyKey: string;
  body: unknown;
  submit: () => Promise<RunRecord>;
  /** How long a request waits for a concurrent one with the same key to create the run. */
  waitForWinnerMs?: number;
}): Promise<IdempotentSubmission> {
  const submission = await fleet.store.submitIdempotently({
    tenant,
    idempotencyKey,
    bodyHash: canonicalJsonHash(body),
    submit,
    ...(waitForWinnerMs === undefined ? {} : { waitForWinnerMs }),
  });
  switch (submission.kind) {
    case 'submitted':
      return { run: submission.run, replayed: submission.replayed };
    case 'conflict':
      throw apiErrors.idempotencyKeyConflict();
    case 'in_progress':
      throw apiErrors.idempotencyKeyInProgress();
    case 'run_missing':
      throw apiErrors.runNotFound();
    default:
      return assertNever(submission);
  }
}
