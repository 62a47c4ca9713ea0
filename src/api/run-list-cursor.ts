// The opaque cursor of GET /v1/runs: where the previous page stopped in the tenant's runs, as
// (creation time, run id). The id breaks ties between runs created in the same millisecond, so
// paging never skips nor repeats a run.
import { RUN_ID_PATTERN } from '../domain/ids.js';

export interface RunListPosition {
  /** Creation time in ms: the run's score in the tenant's sorted set. */
  score: number;
  runId: string;
}

/** Encodes a position as an opaque URL-safe string. */
export function encodeRunListCursor(position: RunListPosition): string {
  return Buffer.from(`${position.score}:${position.runId}`, 'utf8').toString('base64url');
}

/** Decodes a cursor, or null when it is not one this API issued. */
export function decodeRunListCursor(cursor: string): RunListPosition | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  const match = /^(\d{1,16}):(.+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || !RUN_ID_PATTERN.test(match[2] ?? '')) return null;
  return { score: Number(match[1]), runId: match[2] ?? '' };
}
