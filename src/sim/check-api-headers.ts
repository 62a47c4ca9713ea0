// The headers every API route requires before it reads the body: a credential (401
// authentication_error) and `anthropic-version` (400). Docs api/overview ("x-api-key … anthropic-version
// … required") and api/versioning; the SDK always sends both (client.ts `authHeaders`, `defaultHeaders`).
import type { IncomingHttpHeaders } from 'node:http';
import type { ApiErrorType } from './api-error.js';

export interface HeaderProblem {
  status: 400 | 401;
  type: ApiErrorType;
  message: string;
}

/** The refusal for missing credentials or version, or null when both are there. */
export function checkApiHeaders({ headers }: { headers: IncomingHttpHeaders }): HeaderProblem | null {
  if (!headers['x-api-key'] && !headers.authorization) {
    return { status: 401, type: 'authentication_error', message: 'x-api-key header is required' };
  }
  if (!headers['anthropic-version']) return { status: 400, type: 'invalid_request_error', message: 'anthropic-version: header is required' };
  return null;
}
