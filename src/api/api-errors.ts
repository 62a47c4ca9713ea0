// The one registry of the API's error codes, in the manner of Fastify's `lib/errors.js`: each code
// is defined once with its HTTP status and a description, and is never reused for another meaning.
// Clients branch on `error.code`, so a code is a public contract; `API_ERRORS` is exported as data
// so the README table and the OpenAPI document are generated from the same list.
import { z } from 'zod';

export interface ApiErrorDefinition {
  code: string;
  statusCode: number;
  /** What the code means and what the client should do about it. */
  description: string;
}

/** An error the API answers with `{ error: { code, message } }` and its registered status. */
export class ApiError extends Error {
  readonly apiError = true;
  /** Response headers that belong to the answer (retry-after, www-authenticate). */
  headers: Record<string, string> = {};

  constructor(
    readonly code: string,
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** Adds response headers to the answer; returns the error for `throw error.withHeaders(…)`. */
  withHeaders(headers: Record<string, string>): this {
    Object.assign(this.headers, headers);
    return this;
  }

  /** Duck-typed so an ApiError thrown by another copy of this module is still recognised. */
  static isInstance(value: unknown): value is ApiError {
    return value instanceof Error && (value as { apiError?: unknown }).apiError === true;
  }
}

/** Builds an ApiError of one registered code. */
export type ApiErrorFactory<Code extends string> = ((message?: string) => ApiError) & ApiErrorDefinition & { code: Code };

const definitions = new Map<string, ApiErrorDefinition>();

/** Registers a code (refusing duplicates at load time) and returns a factory for its errors. */
export function createApiError<const Code extends string>(code: Code, defaultMessage: string, statusCode: number, description: string): ApiErrorFactory<Code> {
  if (definitions.has(code)) throw new Error(`API error code ${code} is registered twice`);
  definitions.set(code, { code, statusCode, description });
  const factory = (message = defaultMessage) => new ApiError(code, message, statusCode);
  return Object.assign(factory, { code, statusCode, description });
}

export const apiErrors = {
  invalidBody: createApiError(
    'invalid_body',
    'The request body is invalid.',
    400,
    'The JSON body is malformed, empty, or fails the schema (missing, wrong-typed or ' +
      'unknown field). The message names the failing path, e.g. `body.prompt: Too small`.',
  ),
  invalidParams: createApiError(
    'invalid_params',
    'A path parameter is invalid.',
    400,
    'A path parameter that does not identify a resource fails its schema. (Path parameters that name a resource answer that resource’s `*_not_found` instead.)',
  ),
  invalidQuery: createApiError(
    'invalid_query',
    'A query parameter is invalid.',
    400,
    'A query-string parameter fails its schema, e.g. `?after=` is not a stream id like `1700000000000-0`.',
  ),
  invalidHeader: createApiError(
    'invalid_header',
    'A request header is invalid.',
    400,
    'A request header fails its schema, e.g. `Idempotency-Key` is not 1–200 characters of `A–Z a–z 0–9 _ . : -`, or `Last-Event-ID` is not a stream id.',
  ),
  badRequest: createApiError(
    'bad_request',
    'The request could not be understood.',
    400,
    'The request is malformed below the level of a body or parameter schema (bad URL encoding, bad Content-Length).',
  ),
  requestTimeout: createApiError(
    'request_timeout',
    'The request was not received in time.',
    408,
    'The client did not send the whole request within the server’s request timeout. Answered at the connection level, before routing.',
  ),
  headersTooLarge: createApiError(
    'headers_too_large',
    'The request headers are too large.',
    431,
    'The request headers exceed Node’s limit (16 KiB by default). Answered at the connection level, before routing.',
  ),
  unsupportedMediaType: createApiError(
    'unsupported_media_type',
    'Send the body as application/json.',
    415,
    'The request has a body whose Content-Type is not `application/json`.',
  ),
  unsupportedCharset: createApiError(
    'unsupported_charset',
    'Send the body as UTF-8 JSON.',
    415,
    'The `Content-Type` names a `charset` other than `utf-8` (e.g. ' +
      '`application/json; charset=utf-16`). JSON exchanged between systems is UTF-8 ' +
      '(RFC 8259 §8.1): send UTF-8 and leave the parameter out or set it to `utf-8`. Nothing was done.',
  ),
  invalidBodyEncoding: createApiError(
    'invalid_body_encoding',
    'The request body is not valid UTF-8 JSON.',
    400,
    'The body is not valid UTF-8 (a stray byte, an overlong or truncated sequence, ' +
      'UTF-16 text), or starts with a byte order mark, which RFC 8259 §8.1 forbids ' +
      'in JSON text on the wire. The message says which. Nothing was done.',
  ),
  bodyTooLarge: createApiError(
    'body_too_large',
    'The request body is larger than 256 KiB.',
    413,
    'The body exceeds the 256 KiB limit. Checked from Content-Length before the body is read, so nothing else runs.',
  ),
  unauthorized: createApiError(
    'unauthorized',
    'Send a valid API key: Authorization: Bearer bf_….',
    401,
    'The request has no `Authorization: Bearer` API key, or the key is malformed, unknown or ' +
      'revoked. Answered with `www-authenticate: Bearer`. Create keys with `buildfleet keys create`.',
  ),
  forbidden: createApiError(
    'forbidden',
    'This API key lacks the scope this endpoint needs.',
    403,
    'The API key is valid but lacks the scope the endpoint needs (`runs:read`, `runs:write` or `admin`); the message names it. `admin` includes every scope.',
  ),
  duplicateAuthorization: createApiError(
    'duplicate_authorization',
    'Send exactly one Authorization header.',
    400,
    'The request carries more than one `Authorization` header. Which one a server or a ' +
      'proxy in front of it would judge is not defined (RFC 9110 §5.3: the field is not a ' +
      'list), so the request is refused rather than judged by the first. Answered with ' +
      '`www-authenticate: Bearer error="invalid_request"` (RFC 6750), before the body is read.',
  ),
  tooManyEventStreams: createApiError(
    'too_many_event_streams',
    'The tenant has too many event streams open; close one or retry later.',
    429,
    'The tenant already follows `BUILDFLEET_SSE_STREAMS_PER_TENANT` event streams ' +
      '(`GET /v1/runs/{id}/events` as `text/event-stream`, default 100) on this API process. ' +
      'Close a stream (or wait for its run to end) and retry; `retry-after` gives the ' +
      'seconds. The JSON form (`Accept: application/json`) holds no stream and is not counted.',
  ),
  promptTooLarge: createApiError(
    'prompt_too_large',
    'The prompt is too long.',
    400,
    'The prompt has more characters (Unicode code points) than `BUILDFLEET_MAX_PROMPT_CHARS` (default 20,000). Shorten it; nothing was created.',
  ),
  unknownAgent: createApiError(
    'unknown_agent',
    'The fleet runs no agent of this name.',
    400,
    '`agent` names no agent this fleet loads: the site builder and the modules `BUILDFLEET_AGENT_MODULES` ' +
      'names (docs/agents.md). `GET /v1/agents` lists them; the message too. Nothing was created.',
  ),
  agentInputInvalid: createApiError(
    'agent_input_invalid',
    "The run's input does not match its agent's input schema.",
    400,
    '`input` (or `prompt`, which stands for `input: {"prompt": …}`) fails the agent\'s input schema. The message ' +
      'lists each problem with its path. Nothing was created.',
  ),
  unknownModel: createApiError(
    'unknown_model',
    'The model is not one the fleet knows.',
    400,
    'The run names a model the capability table (`BUILDFLEET_MODEL_CAPABILITIES` ' +
      'over the documented defaults) does not list, and `BUILDFLEET_ALLOW_UNKNOWN_MODELS` ' +
      'is off. The message lists the known models. Nothing was created.',
  ),
  modelRetired: createApiError(
    'model_retired',
    'The model is retired.',
    400,
    'The run names a model Anthropic has retired (about-claude/model-deprecations): ' +
      'every request to it fails. The message names the date and the documented ' +
      'successor; submit again with that model. Nothing was created.',
  ),
  thinkingNotSupported: createApiError(
    'thinking_not_supported',
    'The model does not support extended thinking.',
    400,
    'The run asks for `thinking` on a model whose capabilities say it cannot think (the Messages ' +
      'API would refuse every call). Choose another model or drop `thinking`. Nothing was created.',
  ),
  thinkingBudgetTooLarge: createApiError(
    'thinking_budget_too_large',
    'The thinking budget does not fit the model’s output limit.',
    400,
    '`thinking.budgetTokens` must be below max_tokens, and max_tokens cannot exceed the model’s ' +
      'maximum output (or `BUILDFLEET_MAX_TOKENS_CEILING`). Choose a smaller budget. Nothing was created.',
  ),
  thinkingBudgetNotSupported: createApiError(
    'thinking_budget_not_supported',
    'The model takes no thinking budget; set an effort instead.',
    400,
    'The run names `thinking.budgetTokens` on a model that only thinks adaptively (no manual ' +
      '`budget_tokens` on Claude Opus 4.7 and later or any Claude 5 model). Leave the budget ' +
      'out and set `thinking.effort` to control how much it thinks. Nothing was created.',
  ),
  thinkingAlwaysOn: createApiError(
    'thinking_always_on',
    'The model always thinks; thinking cannot be turned off.',
    400,
    'The run asks for `thinking.enabled: false` on a model that always thinks (Claude Opus ' +
      '5.5, Fable and Mythos 5.x: the Messages API refuses `disabled`). Leave `thinking.enabled` ' +
      'out and lower `thinking.effort` to make it think less. Nothing was created.',
  ),
  effortNotSupported: createApiError(
    'effort_not_supported',
    'The model does not take that effort level.',
    400,
    '`thinking.effort` names a level the run’s model does not accept (xhigh ' +
      'only from Opus 4.7 on, max not on Opus 4.5, no effort at all on Sonnet 4.5 ' +
      'or Haiku 4.5). The message lists the levels it takes. Nothing was created.',
  ),
  effortRequiresThinking: createApiError(
    'effort_requires_thinking',
    'That effort needs thinking on.',
    400,
    'The run turns thinking off (`thinking.enabled: false`) at effort xhigh or max — chosen, or the ' +
      'model’s default — on a model that turns thinking off only at effort high or below (Claude Opus 5, ' +
      'Haiku 5.5, and Sonnet 5.5’s `between_tools`). Lower the effort or leave thinking on. Nothing was created.',
  ),
  rateLimited: createApiError(
    'rate_limited',
    'Too many runs created; retry later.',
    429,
    'The tenant created `BUILDFLEET_RATE_LIMIT_PER_MINUTE` runs (default 60) within the last ' +
      '60 s. `retry-after` says how many seconds until one more is allowed. Nothing was created.',
  ),
  tooManyActiveRuns: createApiError(
    'too_many_active_runs',
    'Too many runs have not ended yet; wait for one to end or cancel one.',
    429,
    'The tenant already has as many runs that have not ended (queued, running or waiting for input) ' +
      'as its policy’s `maxConcurrentRuns` allows (fleet default `BUILDFLEET_MAX_CONCURRENT_RUNS`, ' +
      '20). Binds every key of the tenant. Wait for one to end, or cancel one. Nothing was created.',
  ),
  modelSpendLimitReached: createApiError(
    'model_spend_limit_reached',
    'The model account has reached its spend limit; new runs are paused.',
    503,
    'A model call of this fleet was refused because the model account reached its spend limit ' +
      '(Anthropic’s 400 “You have reached your specified API usage limits” or the 429 ' +
      '`enforced_spend_limit_reached`), so new runs are not admitted: each would fail `billing_spend_cap`. ' +
      'Lasts `BUILDFLEET_SPEND_LIMIT_PAUSE_MS` (default 1 h; `retry-after` gives the seconds left) ' +
      'or until an operator raises the limit and calls `POST /v1/admin/spend-limit/clear`. Nothing was created.',
  ),
  budgetAboveTenantMaximum: createApiError(
    'budget_above_tenant_maximum',
    'The run asks for a budget above its tenant’s maximum.',
    400,
    '`options.budgetUsd` or `options.tokenBudget` is above the tenant’s `maxRunBudgetUsd` ' +
      'or `maxRunTokenBudget` (its policy: `GET /v1/spend`; fleet defaults ' +
      '`BUILDFLEET_RUN_BUDGET_USD_MAX`, `BUILDFLEET_TOKEN_BUDGET_MAX`). The message names ' +
      'the option, the amount asked and the maximum. Ask for less, or leave it out for ' +
      'the tenant’s default; keys with the `admin` scope may exceed the maximum. Nothing was created.',
  ),
  maxTurnsAboveTenantMaximum: createApiError(
    'max_turns_above_tenant_maximum',
    'The run asks for more turns than its tenant’s maximum.',
    400,
    '`maxTurns` is above the tenant’s `maxTurns` (its policy: `GET /v1/spend`; fleet default ' +
      '`BUILDFLEET_MAX_TURNS`). Refused, not clamped: a run that silently got fewer turns than ' +
      'it asked for would fail later for a reason its caller never saw. The message names the ' +
      'amount asked and the maximum. Ask for at most that, or leave it out for the tenant’s ' +
      'maximum; keys with the `admin` scope may ask for more (up to 200). Nothing was created.',
  ),
  modelNotAllowed: createApiError(
    'model_not_allowed',
    'The tenant may not use this model.',
    403,
    '`model` is not one of the tenant’s `allowedModels` (its policy: `GET /v1/spend`, set ' +
      'by an operator). The message lists the models it may use. Binds every key of the tenant, ' +
      'admin keys included (an operator changes the policy instead). Nothing was created.',
  ),
  providerNotAllowed: createApiError(
    'provider_not_allowed',
    'The tenant may not use this model provider.',
    403,
    '`provider` is not one of the tenant’s `allowedProviders` (its policy: `GET /v1/spend`, ' +
      'set by an operator; docs/providers.md). The message lists the providers it may ' +
      'use. Binds every key of the tenant, admin keys included. Nothing was created.',
  ),
  unknownProvider: createApiError(
    'unknown_provider',
    'The fleet has no model provider of this name.',
    400,
    '`provider` (or, setting a tenant’s policy, an entry of `allowedProviders`) names ' +
      'no provider the fleet has: `anthropic` and the names `BUILDFLEET_PROVIDERS` declares ' +
      '(docs/providers.md). The message lists them. Nothing was created or changed.',
  ),
  runOptionRequiresAdmin: createApiError(
    'run_option_requires_admin',
    'This run option is for the fleet’s experiments: it needs an API key with the admin scope.',
    403,
    '`options.toolLayout` and `options.textRecovery` exist for the fleet’s own experiments ' +
      '(they change how a run is driven, not what it builds), so only keys with the `admin` ' +
      'scope may set them. The message names the options. Leave them out. Nothing was created.',
  ),
  tenantSpendLimitReached: createApiError(
    'tenant_spend_limit_reached',
    'The tenant has reached its spend limit.',
    429,
    'What the tenant’s runs spent this UTC day or month has reached its limit (`dailySpendLimitUsd`, ' +
      '`monthlySpendLimitUsd` of its policy; fleet defaults `BUILDFLEET_TENANT_DAILY_SPEND_USD`, ' +
      '`BUILDFLEET_TENANT_MONTHLY_SPEND_USD`). The message names the period, its limit, the ' +
      'amount spent and when the period resets; `retry-after` gives the seconds until then. ' +
      '`GET /v1/spend` shows the spend and what remains. Nothing was created.',
  ),
  notFound: createApiError('not_found', 'No such route.', 404, 'No route matches the method and path.'),
  runNotFound: createApiError(
    'run_not_found',
    'No such run.',
    404,
    'No run has this id for the caller’s tenant, or the id is not of the form `run_` + 8–64 letters and digits.',
  ),
  siteNotPublished: createApiError(
    'site_not_published',
    'This run has not published a site yet.',
    404,
    'The run exists but has no live deployment, so its `/sites/{id}/` alias has nothing to serve yet.',
  ),
  deploymentNotFound: createApiError('deployment_not_found', 'No such deployment.', 404, 'The run has no deployment with this id.'),
  siteFileNotFound: createApiError(
    'site_file_not_found',
    'No such file.',
    404,
    'The deployment has no file at this path, or the path is not a valid site path (dot segments, encodings, backslashes are never resolved).',
  ),
  runFileNotFound: createApiError(
    'run_file_not_found',
    'The run has no such file.',
    404,
    'The run’s workspace has no file at this path (or the path is not a valid workspace ' +
      'path). Once Redis no longer holds the run, its workspace is gone and a file is answered ' +
      'from the run’s latest deployment on the site store: a file that deployment lacks (written ' +
      'after it, or never deployed), or any file of a run that never deployed, answers this.',
  ),
  noOpenQuestion: createApiError('no_open_question', 'The run is not waiting for input.', 409, 'Input was sent to a run that has no open `ask_user` question.'),
  runAlreadyEnded: createApiError(
    'run_already_ended',
    'The run has already ended.',
    409,
    'The run is in a terminal state (succeeded, failed, refused, cancelled); it can no longer take input or be cancelled.',
  ),
  runNotResumable: createApiError(
    'run_not_resumable',
    'The run cannot be resumed.',
    409,
    'POST /v1/runs/:id/resume on a run that is not `failed` (it is live, succeeded, refused or ' +
      'cancelled; a second resume finds the first one’s run `running`), or that failed with an error ' +
      'code outside the resumable table (docs/run-states.md#resume: `model_unavailable`, ' +
      '`rate_limit_exhausted`, `billing_spend_cap`, `job_attempts_exhausted`, `run_stalled`). The ' +
      'message names the status or the code; `POST /v1/runs/:id/rerun` starts the same input as a new run.',
  ),
  runArchived: createApiError(
    'run_archived',
    'The run is only in history now; it cannot be resumed.',
    409,
    'POST /v1/runs/:id/resume on a run whose Redis keys expired after its archive ' +
      '(BUILDFLEET_RUN_RETENTION_SECONDS): its turns, ledger and workspace are no longer ' +
      'where a turn can continue from them. `POST /v1/runs/:id/rerun` starts its input as a new run.',
  ),
  webhookUrlInvalid: createApiError(
    'webhook_url_invalid',
    'The webhook URL is not accepted.',
    400,
    '`webhook.url` is not an absolute https URL of at most 2048 characters, ' +
      'carries credentials or a fragment, or uses http for an origin the operator ' +
      'did not list in `BUILDFLEET_WEBHOOK_ALLOWLIST` (docs/webhooks.md).',
  ),
  webhookUrlBlocked: createApiError(
    'webhook_url_blocked',
    'The webhook URL points at an address the fleet does not post to.',
    422,
    'The SSRF guard refuses `webhook.url`: its host is, or resolves to, a loopback, private, ' +
      'link-local (cloud metadata, 169.254.169.254), or otherwise non-public address, or ' +
      'does not resolve at all. Webhooks reach public addresses only (docs/webhooks.md).',
  ),
  webhooksNotConfigured: createApiError(
    'webhooks_not_configured',
    'This fleet does not send webhooks.',
    422,
    'The run names a `webhook` but the operator has not set `BUILDFLEET_WEBHOOK_SECRET`, without which ' +
      'no delivery can be signed. Submit without `webhook`, or ask the operator to set it (docs/webhooks.md).',
  ),
  idempotencyKeyInProgress: createApiError(
    'idempotency_key_in_progress',
    'A request with this Idempotency-Key is still being processed; retry shortly.',
    409,
    'Another request with the same `Idempotency-Key` is creating the run right now and did not finish within a few seconds. Retrying returns its run.',
  ),
  idempotencyKeyConflict: createApiError(
    'idempotency_key_conflict',
    'This Idempotency-Key was used with a different body.',
    422,
    'The `Idempotency-Key` was already used within 24 h with a different request body. Use a new key for a new request.',
  ),
  redisUnavailable: createApiError(
    'redis_unavailable',
    'Redis did not answer.',
    503,
    'Readiness check: Redis did not answer PING within 1 s. The process is alive but cannot serve requests.',
  ),
  historyUnavailable: createApiError(
    'history_unavailable',
    'Run history did not answer; retry.',
    503,
    'The answer needs run history (PostgreSQL, `DATABASE_URL`: a run whose Redis keys ' +
      'have expired, or a listing, which always reads it) and the database did not ' +
      'answer. Runs Redis still holds are not affected. Nothing was changed; retry later.',
  ),
  shuttingDown: createApiError(
    'shutting_down',
    'The server is shutting down; retry.',
    503,
    'The process is closing (deploy, scale-down). Nothing was done; retrying reaches another instance or this one once it is back.',
  ),
  internalError: createApiError(
    'internal_error',
    'Something went wrong on our side.',
    500,
    'An unexpected failure. The message never carries internals; the server log has the details.',
  ),
} as const;

/** Every registered code. */
export type ApiErrorCode = (typeof apiErrors)[keyof typeof apiErrors]['code'];

/** The registry as data: code, HTTP status and description of every error the API answers. */
export const API_ERRORS: readonly ApiErrorDefinition[] = Object.freeze([...definitions.values()]);

/** Looks a code up in the registry. */
export function apiErrorDefinition(code: ApiErrorCode): ApiErrorDefinition {
  const definition = definitions.get(code);
  if (!definition) throw new Error(`unregistered API error code ${code}`);
  return definition;
}

/** The body of every error response. */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string().describe('Stable error code from the API error registry'),
      message: z.string().describe('Human-readable explanation; may change between versions'),
    }),
  })
  .describe('Every error response has this shape');

export type ErrorBody = z.infer<typeof errorBodySchema>;

/** The response body for an ApiError. */
export function errorBodyOf(error: ApiError): ErrorBody {
  return { error: { code: error.code, message: error.message } };
}
