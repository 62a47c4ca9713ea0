// Every environment variable buildfleet reads, in one zod schema parsed once at boot and frozen.
// The README's "Configuration" table documents each one; a bad value stops the process with the
// variable named, before any connection is made.
import { z } from 'zod';
import { parseToolOutputModes } from './domain/tool-output-modes.js';
import { parseModelCapabilityOverrides } from './domain/model-capabilities.js';
import { parseModelPriceOverrides } from './domain/model-prices.js';
import { resolveRunModelSettings } from './domain/resolve-run-model-settings.js';
import { DEFAULT_MODEL } from './domain/model-catalog.js';
import { tenantPolicyOverridesSchema, type TenantPolicyDefaults } from './domain/tenant-policy.js';
import { isUnspecifiedHost, listenerBaseUrl } from './domain/listener-base-url.js';
import { IMPLICIT_PROVIDER, parseProviderDeclarations, providerNameSchema } from './domain/provider-declarations.js';
import { parseClusterSeeds } from './domain/redis-target.js';
import { MAX_QUEUE_SHARDS } from './domain/queue-shards.js';
import { formatZodIssues } from './domain/format-zod-issues.js';

const booleanFlag = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((value) => value === 'true' || value === '1' || value === 'yes');
const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const toolOutputModes = z.string().superRefine((value, context) => {
  try {
    parseToolOutputModes(value);
  } catch (error) {
    context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
  }
});
/** `RPM,ITPM,OTPM`: requests, input tokens and output tokens per minute, each a whole number, 0 =
 * unknown (the admission limiter learns it from the API's headers). */
const admissionLimits = z
  .string()
  .default('0,0,0')
  .pipe(z.string().regex(/^\s*\d+\s*,\s*\d+\s*,\s*\d+\s*$/, 'expected RPM,ITPM,OTPM: three whole numbers, 0 for unknown'))
  .transform((value) => {
    const [requestsPerMinute, inputTokensPerMinute, outputTokensPerMinute] = value.split(',').map((part) => Number(part.trim()));
    return { requestsPerMinute: requestsPerMinute!, inputTokensPerMinute: inputTokensPerMinute!, outputTokensPerMinute: outputTokensPerMinute! };
  });

export const configSchema = z.object({
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  /** A Redis Cluster instead of one server (docs/scaling.md#redis-cluster): comma-separated seed
   * URLs, `redis://[user:password@]host:port` or `rediss://` for TLS. Set, it wins over REDIS_URL. */
  BUILDFLEET_REDIS_CLUSTER_NODES: z
    .string()
    .optional()
    .transform((text, context) => {
      if (text === undefined || text.trim() === '') return undefined;
      try {
        return parseClusterSeeds(text);
      } catch (error) {
        context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
        return z.NEVER;
      }
    }),
  /** WAIT-based durability of the once-only effect claims (deploy's record, publish's step;
   * docs/scaling.md#failover): replicas that must acknowledge a claim before its effect runs or is
   * acknowledged. 0 = off (one server has none); 1 recommended on a cluster with replicas. */
  BUILDFLEET_REDIS_WAIT_REPLICAS: z.coerce.number().int().min(0).max(16).default(0),
  /** How long a claim waits for those replicas before it counts as not durable (the attempt fails, retried). */
  BUILDFLEET_REDIS_WAIT_TIMEOUT_MS: positiveInt.default(1000),
  /** PostgreSQL for run history (docs/history.md). Unset: the processes that need it start a
   * private one (src/dev/private-postgres.ts); `buildfleet migrate` requires it. */
  DATABASE_URL: z
    .string()
    .url()
    .refine((url) => /^postgres(ql)?:$/.test(new URL(url).protocol), 'expected a postgres:// or postgresql:// URL')
    .optional(),
  BUILDFLEET_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9_-]{1,32}$/, 'letters, digits, _ and - only')
    .default('bf'),
  /** How many queue shards the fleet has (docs/scaling.md#queue-shards): the processes that create
   * runs spread them over this many; every process that reads queues (admin counts, the reaper,
   * the console) looks at all of them. The same value on every process of the fleet. */
  BUILDFLEET_QUEUE_SHARDS: z.coerce.number().int().min(1).max(MAX_QUEUE_SHARDS).default(1),
  /** The shard whose jobs this worker process takes (0 … BUILDFLEET_QUEUE_SHARDS − 1). */
  BUILDFLEET_QUEUE_SHARD: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_QUEUE_SHARDS - 1)
    .default(0),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  ANTHROPIC_BASE_URL: z.string().url().optional(),
  // The simulator to call when no ANTHROPIC_API_KEY is set (ANTHROPIC_BASE_URL still wins): lets
  // docker compose and the k8s simulator overlay always name the simulator, yet call Claude as
  // soon as a key is supplied.
  BUILDFLEET_SIMULATOR_URL: z.string().url().optional(),
  BUILDFLEET_MODEL: z.string().min(1).default(DEFAULT_MODEL),
  /** The model providers besides the implicit `anthropic` (docs/providers.md): JSON, provider
   * name → {kind: anthropic | bedrock | vertex | openai_compatible, ...that kind's options}. Each
   * kind's options are checked against that kind's schema (src/providers/provider-settings.ts,
   * which this layer cannot import) when a model worker builds its providers and when the API
   * process starts (src/api/api-process.ts); other processes (the tool worker, the CLI) read only
   * the names. */
  BUILDFLEET_PROVIDERS: z
    .string()
    .default('')
    .transform((text, context) => {
      try {
        return parseProviderDeclarations(text);
      } catch (error) {
        context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
        return z.NEVER;
      }
    }),
  /** The provider of a run that names none (and a tenant without a default): `anthropic` or a
   * name BUILDFLEET_PROVIDERS declares. */
  BUILDFLEET_PROVIDER: providerNameSchema.default(IMPLICIT_PROVIDER),
  /** Corrections and additions to the model capability table (src/domain/model-capabilities.ts):
   * JSON, model id → any of defaultMaxTokens, maxOutputTokens, contextWindowTokens, thinking,
   * defaultThinkingBudgetTokens, merged over the documented entry. */
  BUILDFLEET_MODEL_CAPABILITIES: z
    .string()
    .default('')
    .transform((text, context) => {
      try {
        return parseModelCapabilityOverrides(text);
      } catch (error) {
        context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
        return z.NEVER;
      }
    }),
  /** Corrections and additions to the price table (src/domain/model-prices.ts, docs/costs.md):
   * JSON, model id or `default` → USD per million tokens of any of input, cacheWrite5m,
   * cacheWrite1h, cacheRead, output, merged over the documented entry. */
  BUILDFLEET_MODEL_PRICES: z
    .string()
    .default('')
    .transform((text, context) => {
      try {
        return parseModelPriceOverrides(text);
      } catch (error) {
        context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
        return z.NEVER;
      }
    }),
  /** Accept models the capability table does not name (with conservative limits, no thinking). */
  BUILDFLEET_ALLOW_UNKNOWN_MODELS: booleanFlag.default(false),
  /** How often the catalog is checked against the provider's Models API (docs/models.md), besides
   * once at boot; 0 turns the check off. Only an Anthropic provider has a Models API. */
  BUILDFLEET_MODELS_API_CHECK_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3_600_000)
    .default(6 * 3_600_000),
  /** Overrides every model's default max_tokens (capped at the model's maximum); unset = the table's. */
  BUILDFLEET_MAX_TOKENS: positiveInt.optional(),
  /** Caps how far a truncation raises max_tokens below the model's maximum; unset = the model's maximum. */
  BUILDFLEET_MAX_TOKENS_CEILING: positiveInt.optional(),
  /** Wait for a model call's response headers (connect, TLS, the API accepting the request). The
   * SDK's timeout covers only that wait; the answer itself streams under the idle timeout. */
  BUILDFLEET_MODEL_CONNECT_TIMEOUT_MS: positiveInt.default(60_000),
  /** Abandon a streaming model call after this long without a stream event (pings count): well
   * above the API's ping cadence, so only a dead stream trips it. Classified as transient. */
  BUILDFLEET_MODEL_IDLE_TIMEOUT_MS: positiveInt.default(90_000),
  /** At most one `model-progress` event per this interval while an answer streams (plus one when
   * a tool_use block starts). */
  BUILDFLEET_MODEL_PROGRESS_INTERVAL_MS: positiveInt.default(2000),
  /** How often a model worker measures each (provider, model)'s tokens with the provider's
   * count_tokens to calibrate its prompt estimates (src/model/token-calibration.ts): on the first
   * call, then again after this many calls; 0 = never count (the documented ratios alone).
   * Providers without count_tokens (Bedrock, Vertex, OpenAI-compatible) never count. */
  BUILDFLEET_TOKEN_CALIBRATION_CALLS: z.coerce.number().int().min(0).default(100),
  /** … or when the last measurement of the (provider, model) is older than this. */
  BUILDFLEET_TOKEN_CALIBRATION_INTERVAL_MS: positiveInt.default(900_000),
  /** First fleet-wide pause after a 529 / overloaded_error; doubles with each further overload of
   * the same episode (reset by a successful call), up to the cap. */
  BUILDFLEET_OVERLOAD_BACKOFF_BASE_MS: positiveInt.default(1000),
  BUILDFLEET_OVERLOAD_BACKOFF_CAP_MS: positiveInt.default(60_000),
  /** How long one turn may keep meeting overload before its run fails `model_unavailable`. */
  BUILDFLEET_OVERLOAD_PATIENCE_MS: positiveInt.default(600_000),
  /** How long a spend-limit answer stops POST /v1/runs (unless an admin clears it sooner). */
  BUILDFLEET_SPEND_LIMIT_PAUSE_MS: positiveInt.default(3_600_000),
  /** The shared model-call limiter (src/model/model-rate-limiter.ts, docs/admission.md): `on` =
   * every model call reserves requests, input and output tokens per minute in Redis first, and a
   * worker waits for capacity instead of collecting 429s. Off by default: nothing changes for a
   * fleet that does not know or meet its limits. */
  BUILDFLEET_ADMISSION: z.enum(['off', 'on']).default('off'),
  /** The limiter's starting limits per (API key, model); the API's anthropic-ratelimit-* headers
   * replace them with the real ones from the first answer on. */
  BUILDFLEET_ADMISSION_LIMITS: admissionLimits,
  /** Share of each bucket a `batch` run's call must leave free for `interactive` ones. */
  BUILDFLEET_ADMISSION_BATCH_HEADROOM: z.coerce.number().min(0).max(0.9).default(0.2),
  /** How long an admitted call's reservation lives unsettled (a crashed worker's expires): longer
   * than the slowest call. */
  BUILDFLEET_ADMISSION_RESERVATION_TTL_MS: z.coerce.number().int().min(1000).default(900_000),
  /** How long a booked slot is held for a waiting call that comes back late. */
  BUILDFLEET_ADMISSION_BOOKING_GRACE_MS: z.coerce.number().int().min(100).default(30_000),
  /** Prompt-cache breakpoints on every model request (src/model/place-cache-breakpoints.ts);
   * `false` sends none, fleet-wide (the cost experiment compares the two). */
  BUILDFLEET_PROMPT_CACHING: booleanFlag.default(true),
  /** Phase changes as mid-conversation system messages with tool_addition / tool_removal, every
   * tool declared once, on the models and providers that take them (src/agent/phase-tools.ts);
   * `false` sends each phase's tier in `tools` on every model. Decided at a run's first request. */
  BUILDFLEET_PHASE_TOOL_CHANGES: booleanFlag.default(true),
  /** Tools sent with `strict: true` (input guaranteed to match the schema) on the models that
   * support it (src/tools/strict-input-schema.ts); `false` sends none, fleet-wide, to measure the
   * invalid-tool-input rate without it. */
  BUILDFLEET_STRICT_TOOLS: booleanFlag.default(true),
  /** Lifetime of the breakpoints of a request that may park the run on ask_user
   * (src/agent/prompt-cache-ttl.ts): `1h` writes cost 2x base input instead of 1.25x. */
  BUILDFLEET_PROMPT_CACHE_TTL_WAITING: z.enum(['5m', '1h']).default('5m'),
  /** The fleet's default of every tenant's `maxTurns` (tenant-policy.ts): the turns of a run that
   * names none and the most a run may ask for, 1 to 200. */
  BUILDFLEET_MAX_TURNS: positiveInt.default(40),
  /** The fleet's tenant policy (src/domain/tenant-policy.ts, docs/costs.md "Budgets"), which
   * PUT /v1/admin/tenants/:tenant/policy overrides per tenant; every amount 0 = none.
   * BUILDFLEET_TOKEN_BUDGET is the default token budget of a run. */
  BUILDFLEET_TOKEN_BUDGET: positiveInt.default(400_000),
  // A ceiling by default (5× the default budget): with none, any key could give its runs the
  // 10,000,000-token maximum (issue #16: "tenants set their own limits"); admin keys may exceed it.
  BUILDFLEET_TOKEN_BUDGET_MAX: z.coerce.number().int().min(0).default(2_000_000),
  BUILDFLEET_RUN_BUDGET_USD: z.coerce.number().min(0).default(0),
  BUILDFLEET_RUN_BUDGET_USD_MAX: z.coerce.number().min(0).default(0),
  BUILDFLEET_TENANT_DAILY_SPEND_USD: z.coerce.number().min(0).default(0),
  BUILDFLEET_TENANT_MONTHLY_SPEND_USD: z.coerce.number().min(0).default(0),
  /** Parsed transcripts a model worker keeps between turns (src/engine/transcript-cache.ts). */
  BUILDFLEET_TRANSCRIPT_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(64),
  BUILDFLEET_API_HOST: z.string().default('127.0.0.1'),
  BUILDFLEET_API_PORT: port.default(8080),
  BUILDFLEET_PUBLIC_URL: z.string().url().optional(),
  /** The sites origin (src/api/sites-server.ts, docs/sites.md): published sites and
   * deployments are served by the API process on this second listener, never on the API's own
   * origin, so model-written pages cannot reach /v1 or /docs as same-origin. */
  BUILDFLEET_SITES_HOST: z.string().default('127.0.0.1'),
  BUILDFLEET_SITES_PORT: port.default(8081),
  /** The sites origin as users and tools reach it: every site link the fleet hands out, and the
   * one origin the fetch tools trust. Default http://BUILDFLEET_SITES_HOST:BUILDFLEET_SITES_PORT;
   * required when that host is a wildcard (0.0.0.0, ::), which is no address to trust. */
  BUILDFLEET_SITES_PUBLIC_URL: z.string().url().optional(),
  /** Where deployments and published pointers live (src/sites/, docs/sites.md#storage): a directory
   * on a volume, written by tool workers and read by the API. Relative paths resolve against the
   * process's working directory; compose and k8s mount a volume and set an absolute path. */
  BUILDFLEET_SITES_DIR: z.string().min(1).default('.buildfleet/sites'),
  /** The run console (src/console/, docs/console.md): a third listener of the API process, an
   * origin of its own (never the API's nor the sites'). Unset port: no console in this process, so
   * every test or tool that starts an API does not also claim a fixed port; the image sets 8082. */
  BUILDFLEET_CONSOLE_HOST: z.string().default('127.0.0.1'),
  BUILDFLEET_CONSOLE_PORT: port.optional(),
  /** The console's origin as browsers reach it (behind a proxy or TLS): cross-origin requests are
   * judged against it and its https decides the cookie's Secure flag. Default
   * http://BUILDFLEET_CONSOLE_HOST:BUILDFLEET_CONSOLE_PORT. */
  BUILDFLEET_CONSOLE_PUBLIC_URL: z
    .string()
    .url()
    .refine((url) => /^https?:$/.test(new URL(url).protocol), 'expected an http:// or https:// URL')
    .optional(),
  /** How long a console session lives without a request (seconds): each request renews it. */
  BUILDFLEET_CONSOLE_SESSION_TTL_SECONDS: z.coerce.number().int().min(60).max(2_592_000).default(28_800),
  /** Link from a run page to its trace: a URL with `{traceId}` (e.g. Jaeger's
   * http://127.0.0.1:16686/trace/{traceId}); unset = no trace link. */
  BUILDFLEET_TRACE_URL_TEMPLATE: z
    .string()
    .refine((template) => template.includes('{traceId}'), 'must contain {traceId}')
    .refine(
      (template) => URL.canParse(template.replaceAll('{traceId}', '0')) && /^https?:$/.test(new URL(template.replaceAll('{traceId}', '0')).protocol),
      'must be an http:// or https:// URL once {traceId} is filled in',
    )
    .optional(),
  // Every process serves /healthz, /readyz and /metrics here; loopback by default, containers set
  // 0.0.0.0 so probes and Prometheus can reach it.
  BUILDFLEET_METRICS_HOST: z.string().default('127.0.0.1'),
  BUILDFLEET_METRICS_PORT: port.default(0),
  BUILDFLEET_MODEL_CONCURRENCY: positiveInt.default(8),
  BUILDFLEET_TOOL_CONCURRENCY: positiveInt.default(16),
  /** The event-loop delay p99 (ms, as nodejs_eventloop_lag_p99_seconds reads it) a worker keeps
   * itself under by taking fewer jobs at once (src/workers/concurrency-governor.ts); the two
   * concurrencies above are then ceilings. 0 = off: a worker always runs at its ceiling. */
  BUILDFLEET_WORKER_LOOP_DELAY_TARGET_MS: z.coerce.number().int().min(0).max(60_000).default(40),
  /** How long SIGTERM waits for running jobs. Longer than the slowest expected model call (32,000
   * output tokens at ~60 tokens/s is about 9 minutes), so a stopping worker finishes the call it
   * paid for instead of leaving it to be sent again by the worker that takes the job over. */
  BUILDFLEET_SHUTDOWN_TIMEOUT_MS: positiveInt.default(600_000),
  /** Attempts of one model turn on transient errors (5xx, 529, timeouts, connection). */
  BUILDFLEET_MODEL_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  /** Completed model and tool jobs each queue keeps (besides a 24 h age limit): a re-run of an
   * earlier step finds its successor's job id taken while the job is kept. Each is ~1–4 KB of Redis
   * (a tool job carries its input), so this bounds what the queues hold. Run history lives in
   * PostgreSQL; these jobs are no record. */
  BUILDFLEET_COMPLETED_JOBS_KEPT: z.coerce.number().int().min(1000).max(1_000_000).default(50_000),
  /** Base of the exponential backoff with jitter between model attempts (429 without retry-after: x5). */
  BUILDFLEET_RETRY_BASE_MS: positiveInt.default(1000),
  /** Cap of one backoff delay. */
  BUILDFLEET_RETRY_CAP_MS: positiveInt.default(30_000),
  /** BullMQ job lock: a worker killed mid-job loses its job to another after this long. */
  BUILDFLEET_LOCK_DURATION_MS: z.coerce.number().int().min(1000).default(30_000),
  /** How often workers look for stalled jobs (those whose lock expired). */
  BUILDFLEET_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).default(15_000),
  /** How often each model worker process offers to sweep for runs with no live job (one sweeps at
   * a time, under a Redis lock: src/workers/run-reaper.ts); 0 = no reaper in this process. */
  BUILDFLEET_REAPER_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  /** How long a run must have made no transition before the reaper judges it: covers the moments
   * between a step and the job it enqueues (a commit and its flow, a creation and its first turn). */
  BUILDFLEET_REAPER_GRACE_MS: z.coerce.number().int().min(100).max(86_400_000).default(60_000),
  /** How many times the reaper hands one turn to a new job before it ends the run (run_stalled). */
  BUILDFLEET_REAPER_MAX_RECOVERIES: z.coerce.number().int().min(0).max(100).default(3),
  /** How long a finished run's Redis keys stay once its history is in PostgreSQL (seconds; the API
   * answers it from PostgreSQL after). Only with DATABASE_URL: without it nothing expires. At most
   * a year: a longer life belongs in PostgreSQL, not in a Redis that runs with noeviction. */
  BUILDFLEET_RUN_RETENTION_SECONDS: z.coerce.number().int().min(1).max(31_536_000).default(86_400),
  /** How often each tool worker process offers to sweep for finished runs whose archive job was
   * lost (one sweeps at a time, under a Redis lock: src/workers/archive-sweeper.ts); a run is
   * swept once it ended at least this long ago. 0 = no sweep in this process. */
  BUILDFLEET_ARCHIVE_SWEEP_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  BUILDFLEET_CHROMIUM_PATH: z.string().optional(),
  /** How long the screenshot tool gives Chromium to start, load the page and take the picture (ms).
   * At most 55 s: under a tool call's 60 s timeout, so the tool answers `screenshot_timeout` itself
   * rather than the call being aborted. */
  BUILDFLEET_SCREENSHOT_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(55_000).default(30_000),
  /** The fleet's webhook key (docs/webhooks.md): each tenant's signing secret is derived from it,
   * so one leaked tenant secret signs nothing for another. Unset: runs naming a webhook are refused
   * (`webhooks_not_configured`). At least 32 characters: it is the root of every signature. */
  BUILDFLEET_WEBHOOK_SECRET: z.string().min(32, 'at least 32 characters (e.g. `openssl rand -hex 32`)').optional(),
  /** Comma-separated origins a webhook may name besides public https hosts: http allowed, the
   * address not checked (a receiver on loopback in development and tests). Like
   * BUILDFLEET_FETCH_ALLOWLIST, an operator's decision, never a client's. */
  BUILDFLEET_WEBHOOK_ALLOWLIST: z.string().default(''),
  /** One delivery attempt's bound: connect, send, response headers and the first bytes of the body. */
  BUILDFLEET_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Attempts of one delivery (network errors, 408, 429, 5xx are retried; other answers are final). */
  BUILDFLEET_WEBHOOK_ATTEMPTS: z.coerce.number().int().min(1).max(30).default(10),
  /** First retry delay of a delivery, doubling each attempt (BullMQ exponential backoff, ±50% jitter). */
  BUILDFLEET_WEBHOOK_BACKOFF_MS: z.coerce.number().int().min(10).max(3_600_000).default(2_000),
  /** How often each tool worker offers to sweep for run ends whose webhook delivery was never
   * enqueued (docs/webhooks.md#guarantee); also the grace after an end before it is swept. 0: none. */
  BUILDFLEET_WEBHOOK_SWEEP_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  BUILDFLEET_FETCH_ALLOWLIST: z.string().default(''),
  /** Agent modules every role loads besides the site builder (docs/agents.md): comma-separated
   * paths (relative to the working directory) or file: URLs, each exporting an agent's definition. */
  BUILDFLEET_AGENT_MODULES: z.string().default(''),
  /** fetch_url_live / fetch_image may reach public addresses (each connection's address checked by
   * the SSRF guard); false = only the site server and BUILDFLEET_FETCH_ALLOWLIST. */
  BUILDFLEET_FETCH_PUBLIC: booleanFlag.default(true),
  /** API authentication: `required` (bearer API keys) or `disabled` (every request is tenant
   * `default` with every scope; local experiments only). */
  BUILDFLEET_AUTH: z.enum(['required', 'disabled']).default('required'),
  /** Longest prompt POST /v1/runs accepts, in characters (Unicode code points). */
  BUILDFLEET_MAX_PROMPT_CHARS: z.coerce.number().int().min(1).max(200_000).default(20_000),
  /** Runs one tenant may create per minute (sliding window); 0 = unlimited. */
  BUILDFLEET_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(60),
  /** Runs one tenant may have not yet ended (queued, running, waiting for input); 0 = unlimited.
   * The fleet's default of every tenant's `maxConcurrentRuns` (tenant-policy.ts). */
  BUILDFLEET_MAX_CONCURRENT_RUNS: z.coerce.number().int().min(0).default(20),
  /** Redis connections one API process blocks in XREAD to follow every open event stream (SSE),
   * however many streams there are. */
  BUILDFLEET_SSE_REDIS_CONNECTIONS: z.coerce.number().int().min(1).max(32).default(2),
  /** Event streams one tenant may hold open on one API process; 0 = unlimited. */
  BUILDFLEET_SSE_STREAMS_PER_TENANT: z.coerce.number().int().min(0).default(100),
  BUILDFLEET_TEXT_RECOVERY: booleanFlag.default(true),
  /** Per-tool output modes overriding the contracts' defaults: `fetch_image=degrade,fetch_url_live=fail_closed`. */
  BUILDFLEET_TOOL_OUTPUT_MODES: toolOutputModes.default(''),
  /** Invalid share of validated tool outputs in the window that trips the kill switch (0 < x <= 1). */
  BUILDFLEET_KILLSWITCH_THRESHOLD: z.coerce.number().gt(0).max(1).default(0.25),
  /** Validated outputs the window must hold before the kill switch may trip. */
  BUILDFLEET_KILLSWITCH_MIN_VOLUME: positiveInt.default(20),
  /** Length of the kill switch's sliding window (1 s buckets), 1 s to 10 min. */
  BUILDFLEET_KILLSWITCH_WINDOW_MS: z.coerce.number().int().min(1000).max(600_000).default(60_000),
  /** After an automatic trip, half-open after this long and let one probe write through; 0 = off. */
  BUILDFLEET_KILLSWITCH_COOLDOWN_MS: z.coerce.number().int().min(0).default(0),
  /** Spiking tenants (own invalid share at or over the threshold) a fleet-wide trip needs; 1 = any
   * spike trips the whole fleet, as before the switch had scopes. */
  BUILDFLEET_KILLSWITCH_FLEET_MIN_TENANTS: z.coerce.number().int().min(1).max(1000).default(3),
  /** Spiking tenants an upstream (tool + host) trip needs: one tenant fetching junk from a shared
   * host trips only its own scope. */
  BUILDFLEET_KILLSWITCH_UPSTREAM_MIN_TENANTS: z.coerce.number().int().min(1).max(1000).default(2),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
});

export type Config = Readonly<z.infer<typeof configSchema>>;

export class ConfigError extends Error {
  readonly code = 'config_invalid';
}

/** Parses an environment (process.env by default) into a frozen Config, naming every bad variable. */
/** Variables that were renamed: still setting one is a mistake the operator must hear about,
 * not a value silently replaced by the new variable's default. */
const RENAMED_VARIABLES: Readonly<Record<string, string>> = {
  BUILDFLEET_MODEL_TIMEOUT_MS:
    'BUILDFLEET_MODEL_CONNECT_TIMEOUT_MS (the wait for response headers) and ' +
    'BUILDFLEET_MODEL_IDLE_TIMEOUT_MS (the longest silence in a streamed answer); a model call has no total timeout any more',
};

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  const renamed = Object.keys(RENAMED_VARIABLES).filter((name) => environment[name] !== undefined && environment[name] !== '');
  if (renamed.length > 0) {
    throw new ConfigError(`Invalid environment: ${renamed.map((name) => `${name} was replaced by ${RENAMED_VARIABLES[name]}`).join('; ')}`);
  }
  const relevant: Record<string, string> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = environment[key];
    if (value !== undefined && value !== '') relevant[key] = value;
  }
  const parsed = configSchema.safeParse(relevant);
  if (!parsed.success) {
    throw new ConfigError(`Invalid environment: ${formatZodIssues({ issues: parsed.error.issues })}`);
  }
  if (parsed.data.BUILDFLEET_QUEUE_SHARD >= parsed.data.BUILDFLEET_QUEUE_SHARDS) {
    throw new ConfigError(
      `Invalid environment: BUILDFLEET_QUEUE_SHARD: ${parsed.data.BUILDFLEET_QUEUE_SHARD} ` +
        `is not one of the ${parsed.data.BUILDFLEET_QUEUE_SHARDS} shards ` +
        `BUILDFLEET_QUEUE_SHARDS names (0 … ${parsed.data.BUILDFLEET_QUEUE_SHARDS - 1})`,
    );
  }
  if (parsed.data.BUILDFLEET_PROVIDER !== IMPLICIT_PROVIDER && !Object.hasOwn(parsed.data.BUILDFLEET_PROVIDERS, parsed.data.BUILDFLEET_PROVIDER)) {
    throw new ConfigError(
      `Invalid environment: BUILDFLEET_PROVIDER: ${JSON.stringify(parsed.data.BUILDFLEET_PROVIDER)} ` +
        `is neither \`${IMPLICIT_PROVIDER}\` nor a provider BUILDFLEET_PROVIDERS declares`,
    );
  }
  // The default model must be one runs can use: refused here rather than at every submit.
  try {
    resolveRunModelSettings({ config: parsed.data });
  } catch (error) {
    throw new ConfigError(`Invalid environment: BUILDFLEET_MODEL: ${error instanceof Error ? error.message : String(error)}`);
  }
  // The fleet's policy obeys the rules of a tenant's: its ranges, and a default not above its
  // maximum — refused only when the operator set both; a default left at its built-in value is
  // lowered to the maximum at use (tenant-policy.ts effectiveTenantPolicy), as documented.
  const fleetPolicy: Partial<TenantPolicyDefaults> = tenantPolicyDefaults(parsed.data);
  for (const [defaultVariable, field] of [
    ['BUILDFLEET_RUN_BUDGET_USD', 'defaultRunBudgetUsd'],
    ['BUILDFLEET_TOKEN_BUDGET', 'defaultRunTokenBudget'],
  ] as const) {
    if (relevant[defaultVariable] === undefined) delete fleetPolicy[field];
  }
  const policy = tenantPolicyOverridesSchema.safeParse(fleetPolicy);
  if (!policy.success) {
    const variableOf = Object.fromEntries(Object.entries(POLICY_VARIABLES).map(([variable, field]) => [field, variable]));
    const problems = policy.error.issues.map((issue) => `${variableOf[String(issue.path[0])] ?? String(issue.path[0])}: ${issue.message}`);
    throw new ConfigError(`Invalid environment: ${problems.join('; ')}`);
  }
  const sitesProblem = sitesOriginProblem(parsed.data);
  if (sitesProblem) throw new ConfigError(`Invalid environment: ${sitesProblem}`);
  const consoleProblem = consoleOriginProblem(parsed.data);
  if (consoleProblem) throw new ConfigError(`Invalid environment: ${consoleProblem}`);
  return Object.freeze(parsed.data);
}

/** The API's base URL as users reach it: BUILDFLEET_PUBLIC_URL, else its listener's own address. */
export function apiBaseUrlOf(config: Pick<Config, 'BUILDFLEET_PUBLIC_URL' | 'BUILDFLEET_API_HOST' | 'BUILDFLEET_API_PORT'>): string {
  return listenerBaseUrl({ publicUrl: config.BUILDFLEET_PUBLIC_URL, host: config.BUILDFLEET_API_HOST, port: config.BUILDFLEET_API_PORT });
}

/** The sites origin's base URL as users and tool workers reach it: BUILDFLEET_SITES_PUBLIC_URL,
 * else its listener's own address (never a wildcard: sitesOriginProblem refuses one). */
export function sitesBaseUrlOf(config: Pick<Config, 'BUILDFLEET_SITES_PUBLIC_URL' | 'BUILDFLEET_SITES_HOST' | 'BUILDFLEET_SITES_PORT'>): string {
  return listenerBaseUrl({ publicUrl: config.BUILDFLEET_SITES_PUBLIC_URL, host: config.BUILDFLEET_SITES_HOST, port: config.BUILDFLEET_SITES_PORT });
}

function parsedUrlOf(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/** Sites must not share the API's origin (issue #16): the same listener, or a sites origin equal
 * to the API's (its public URL, or its default one when none is set), would serve model-written
 * pages as the API itself. And the sites origin is trusted by the fetch tools without an address
 * check, so it must name an address: a wildcard host (0.0.0.0, ::) would make every tool worker
 * trust its own loopback. */
function sitesOriginProblem(config: z.infer<typeof configSchema>): string | null {
  if (
    config.BUILDFLEET_SITES_PORT !== 0 &&
    config.BUILDFLEET_SITES_PORT === config.BUILDFLEET_API_PORT &&
    config.BUILDFLEET_SITES_HOST === config.BUILDFLEET_API_HOST
  ) {
    return `BUILDFLEET_SITES_PORT: ${config.BUILDFLEET_SITES_PORT} is the API's port; sites need a listener of their own`;
  }
  const sitesVariable = config.BUILDFLEET_SITES_PUBLIC_URL ? 'BUILDFLEET_SITES_PUBLIC_URL' : 'BUILDFLEET_SITES_HOST';
  if (!config.BUILDFLEET_SITES_PUBLIC_URL && isUnspecifiedHost(config.BUILDFLEET_SITES_HOST)) {
    return (
      `BUILDFLEET_SITES_HOST: ${config.BUILDFLEET_SITES_HOST} listens on every address, ` +
      `which is no origin to link to or trust (a tool worker would trust its own loopback); ` +
      `set BUILDFLEET_SITES_PUBLIC_URL to the sites origin as users and tool workers reach it`
    );
  }
  const sites = parsedUrlOf(sitesBaseUrlOf(config));
  if (!sites) return `BUILDFLEET_SITES_HOST: ${JSON.stringify(config.BUILDFLEET_SITES_HOST)} is no host name or address`;
  if (isUnspecifiedHost(sites.hostname)) {
    return (
      `BUILDFLEET_SITES_PUBLIC_URL: ${sites.origin} names every address of a machine, ` +
      `not one to reach; set it to the sites origin as users and tool workers reach it`
    );
  }
  const api = parsedUrlOf(apiBaseUrlOf(config));
  if (!api) return `BUILDFLEET_API_HOST: ${JSON.stringify(config.BUILDFLEET_API_HOST)} is no host name or address`;
  // Port 0 is a free port picked at listen time: two such listeners never share one.
  if (sites.port !== '0' && api.port !== '0' && sites.origin === api.origin) {
    const apiSource = config.BUILDFLEET_PUBLIC_URL ? 'BUILDFLEET_PUBLIC_URL' : "the API's default URL (BUILDFLEET_API_HOST:BUILDFLEET_API_PORT)";
    return `${sitesVariable}: the sites origin ${sites.origin} is the API's (${apiSource}); sites must be served from an origin of their own`;
  }
  return null;
}

/** The variable that sets each field of the fleet's tenant policy. */
const POLICY_VARIABLES = {
  BUILDFLEET_RUN_BUDGET_USD: 'defaultRunBudgetUsd',
  BUILDFLEET_RUN_BUDGET_USD_MAX: 'maxRunBudgetUsd',
  BUILDFLEET_TOKEN_BUDGET: 'defaultRunTokenBudget',
  BUILDFLEET_TOKEN_BUDGET_MAX: 'maxRunTokenBudget',
  BUILDFLEET_TENANT_DAILY_SPEND_USD: 'dailySpendLimitUsd',
  BUILDFLEET_TENANT_MONTHLY_SPEND_USD: 'monthlySpendLimitUsd',
  BUILDFLEET_MAX_TURNS: 'maxTurns',
  BUILDFLEET_MAX_CONCURRENT_RUNS: 'maxConcurrentRuns',
} as const satisfies Record<string, keyof TenantPolicyDefaults>;

/** The fleet's defaults of every tenant's policy, from the environment. */
export function tenantPolicyDefaults(config: Pick<Config, keyof typeof POLICY_VARIABLES>): TenantPolicyDefaults {
  return Object.fromEntries(
    Object.entries(POLICY_VARIABLES).map(([variable, field]) => [field, config[variable as keyof typeof POLICY_VARIABLES]]),
  ) as unknown as TenantPolicyDefaults;
}

/** Why the console's origin is unusable, or null: it must be neither the API's nor the sites'
 * origin (a page on either could then call the console's endpoints as same-origin). */
function consoleOriginProblem(config: z.infer<typeof configSchema>): string | null {
  if (config.BUILDFLEET_CONSOLE_PORT === undefined) return null;
  // Port 0 picks a free port at listen time, which no other listener can hold.
  if (config.BUILDFLEET_CONSOLE_PORT === 0 && !config.BUILDFLEET_CONSOLE_PUBLIC_URL) return null;
  const consoleOrigin = new URL(consoleBaseUrlOf(config)).origin;
  if (consoleOrigin === new URL(sitesBaseUrlOf(config)).origin)
    return `BUILDFLEET_CONSOLE_PORT/BUILDFLEET_CONSOLE_PUBLIC_URL: ${consoleOrigin} is the sites origin; the console needs an origin of its own`;
  if (consoleOrigin === new URL(apiBaseUrlOf(config)).origin)
    return `BUILDFLEET_CONSOLE_PORT/BUILDFLEET_CONSOLE_PUBLIC_URL: ${consoleOrigin} is the API's origin; the console needs an origin of its own`;
  return null;
}

/** The console's base URL as browsers reach it: BUILDFLEET_CONSOLE_PUBLIC_URL, else its listener's
 * configured address (port 0 until it listens: the console server uses its real address then). */
export function consoleBaseUrlOf(config: Pick<Config, 'BUILDFLEET_CONSOLE_PUBLIC_URL' | 'BUILDFLEET_CONSOLE_HOST' | 'BUILDFLEET_CONSOLE_PORT'>): string {
  return listenerBaseUrl({ publicUrl: config.BUILDFLEET_CONSOLE_PUBLIC_URL, host: config.BUILDFLEET_CONSOLE_HOST, port: config.BUILDFLEET_CONSOLE_PORT ?? 0 });
}
