// The exit codes of the `buildfleet` commands that talk to a fleet, and how an API error maps to
// one, so a script can branch on what went wrong without parsing messages. README's CLI section
// lists them; change both together.
import { CLI } from './cli-name.js';
import type { ApiClientError } from './api-client.js';

export const EXIT_CODES = {
  /** The command did what it was asked; a followed run succeeded. */
  ok: 0,
  /** A followed run ended without succeeding (failed, refused, cancelled), or an unexpected error. */
  runNotSucceeded: 1,
  /** The command line was wrong, or the API refused the request as invalid (400, 413, 415, 422, 431). */
  usage: 2,
  /** A followed run waits for an answer and none could be given (no --answer, stdin not a TTY). */
  waitingForInput: 3,
  /** The run (or what was asked for) does not exist for this key (404). */
  notFound: 4,
  /** The key is missing, wrong, or lacks the scope (401, 403). */
  unauthorized: 5,
  /** The run's state refuses the request: not resumable, already ended, no open question (409). */
  conflict: 6,
  /** A limit refused the request: rate, active runs, spend, event streams (429, and 503 model_spend_limit_reached). */
  limited: 7,
  /** The fleet could not be reached, failed (5xx), or answered something the CLI cannot read. */
  unavailable: 8,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** The exit code of a request the API refused. */
export function exitCodeOfApiError({ status, code }: Pick<ApiClientError, 'status' | 'code'>): ExitCode {
  // A spend limit is a limit even though the API answers it 503 (the model account, not the fleet).
  if (code === 'model_spend_limit_reached') return EXIT_CODES.limited;
  if (status === 401 || status === 403) return EXIT_CODES.unauthorized;
  if (status === 404) return EXIT_CODES.notFound;
  if (status === 409) return EXIT_CODES.conflict;
  if (status === 429) return EXIT_CODES.limited;
  if (status >= 400 && status < 500) return EXIT_CODES.usage;
  return EXIT_CODES.unavailable;
}

// What to do next, for the codes where the API's message alone leaves a CLI user guessing. `<run>`
// stands for the run the refused request was about (runIdOfPath), so the hint can be pasted.
const HINTS: Record<string, string> = {
  unauthorized: `pass --key KEY or set BUILDFLEET_API_KEY (\`${CLI} keys create\` makes one)`,
  forbidden: `this key lacks the scope; \`${CLI} keys create --scopes …\` makes one that has it`,
  run_not_found: `check the id; \`${CLI} list\` shows this tenant’s runs`,
  run_not_resumable: `start its input again as a new run: ${CLI} rerun <run>`,
  run_archived: `its live state has expired; start its input again: ${CLI} rerun <run>`,
  no_open_question: `the run is not waiting for an answer; \`${CLI} status <run>\` shows what it is doing`,
  run_already_ended: `the run has ended; \`${CLI} logs <run>\` shows how`,
  too_many_active_runs: 'wait for a run of this tenant to end, or cancel one',
  history_unavailable: 'the fleet’s run history (PostgreSQL) is down; runs Redis still holds can be read',
};

/** The run id a request path names (`/v1/runs/<id>…`), or undefined. */
function runIdOfPath(path: string | undefined): string | undefined {
  const encoded = path === undefined ? undefined : /^\/v1\/runs\/([^/?#]+)/.exec(path)?.[1];
  if (encoded === undefined) return undefined;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** The line printed for an API refusal: status, code, the API's message and a hint naming the run
 * the request was about, when its path names one. */
export function describeApiError(error: Pick<ApiClientError, 'status' | 'code' | 'message' | 'path'>): string {
  const runId = runIdOfPath(error.path);
  const template = HINTS[error.code];
  const hint = template !== undefined && runId !== undefined ? template.replaceAll('<run>', runId) : template;
  return `the API answered ${error.status} ${error.code}: ${error.message}${hint ? `\n  hint: ${hint}` : ''}`;
}
