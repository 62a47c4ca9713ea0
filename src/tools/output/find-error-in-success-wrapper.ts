// Upstreams that answer 200 with an error inside a success envelope: `{ok: true, error: {...}}`,
// `{success: true, error: "..."}`, `{status: "ok", error: {...}}`, or GraphQL's
// `{"data": null, "errors": [...]}`. The HTTP status and the JSON both look fine; only the
// combination gives the failure away.

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPresentError(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  if (isPlainObject(value)) return Object.keys(value).length > 0;
  return true;
}

const SUCCESS_STATUSES = new Set(['ok', 'success', 'succeeded']);

/** A short description of the wrapped error, or null when the value is not such a wrapper. */
export function findErrorInSuccessWrapper(value: unknown): string | null {
  if (!isPlainObject(value)) return null;
  const saysSuccess = value.ok === true || value.success === true || (typeof value.status === 'string' && SUCCESS_STATUSES.has(value.status.toLowerCase()));
  if (saysSuccess) {
    for (const field of ['error', 'errors', 'error_message', 'errorMessage'] as const) {
      if (isPresentError(value[field])) return `the body says success but carries "${field}"`;
    }
  }
  if ('data' in value && value.data === null && isPresentError(value.errors)) return 'the body has "data": null and "errors"';
  return null;
}
