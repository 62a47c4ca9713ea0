// A history read that failed because PostgreSQL could not be reached is the client's 503
// history_unavailable (retry later), not a 500: the fleet is fine, one of its stores is away. A
// row that does not decode, or any other failure, stays what it is (a 500 with the details logged).
import { apiErrors } from './api-errors.js';

/** node-postgres connection failures: the socket's errno codes, SQLSTATE class 08 (connection
 * exception), 57P01–57P03 (the server shutting down or starting), 53300 (too many connections). */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

function isPostgresUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || code.startsWith('08'))) return true;
  // What node-postgres throws when the server closes the connection or a connect attempt times out.
  return /Connection terminated|timeout exceeded when trying to connect/i.test(error.message);
}

/** Runs one history read; an unreachable PostgreSQL becomes ApiError history_unavailable (with
 * the cause attached for the log). */
export async function readHistory<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!isPostgresUnreachable(error)) throw error;
    const unavailable = apiErrors.historyUnavailable();
    unavailable.cause = error;
    throw unavailable;
  }
}
