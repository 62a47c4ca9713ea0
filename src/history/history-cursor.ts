// The keyset cursor of a history listing: the (created_at, id) of the last run of a page. The
// next page starts strictly after it in the listing's order (created_at, id descending), so a run
// archived meanwhile neither shifts nor repeats a page the way an offset would.
import { z } from 'zod';
import { HistoryCursorInvalid } from './history-errors.js';

const cursorSchema = z.strictObject({ createdAt: z.iso.datetime({ offset: true }), id: z.string().min(1) });
export type HistoryCursor = z.infer<typeof cursorSchema>;

/** An opaque, URL-safe token. */
export function encodeHistoryCursor(cursor: HistoryCursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

/** Throws HistoryCursorInvalid on anything encodeHistoryCursor did not produce. */
export function decodeHistoryCursor(token: string): HistoryCursor {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw new HistoryCursorInvalid('not a cursor token');
  }
  const parsed = cursorSchema.safeParse(value);
  if (!parsed.success) throw new HistoryCursorInvalid(parsed.error.issues[0]?.message ?? 'malformed');
  return parsed.data;
}
