// The console's own HTTP errors, in the API's shape (`{ error: { code, message } }`) so the page
// reads one format whether an answer came from the console or was forwarded from the API. Codes
// start with `console_` and are documented in docs/console.md; the API's codes pass through as the
// API sent them.

export const CONSOLE_ERRORS = {
  console_not_signed_in: { statusCode: 401, description: 'No console session (none yet, expired, signed out, or its API key was revoked): sign in again.' },
  console_sign_in_refused: { statusCode: 401, description: 'The API key is not valid (unknown, malformed or revoked).' },
  console_invalid_body: { statusCode: 400, description: 'The sign-in body must be JSON `{ "apiKey": "bf_…" }`.' },
  console_cross_origin_refused: {
    statusCode: 403,
    description: 'A request that changes something came from another origin (or named none): only the console’s own pages may send it (CSRF).',
  },
  console_admin_only: { statusCode: 403, description: 'Only a session signed in with an `admin` key may open this (Bull Board under /queues).' },
  console_path_not_forwarded: { statusCode: 404, description: 'The console forwards /api/v1/… to the API; nothing else lives under /api.' },
  console_api_unreachable: { statusCode: 502, description: 'The console could not reach the API of its own process.' },
  console_not_found: { statusCode: 404, description: 'No such console page or asset.' },
} as const satisfies Record<string, { statusCode: number; description: string }>;

export type ConsoleErrorCode = keyof typeof CONSOLE_ERRORS;

/** A console error with its stable code; `message` defaults to the code's description. */
export class ConsoleError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ConsoleErrorCode,
    message?: string,
  ) {
    super(message ?? CONSOLE_ERRORS[code].description);
    this.statusCode = CONSOLE_ERRORS[code].statusCode;
  }

  /** The JSON body of the answer. */
  toBody(): { error: { code: string; message: string } } {
    return { error: { code: this.code, message: this.message } };
  }
}
