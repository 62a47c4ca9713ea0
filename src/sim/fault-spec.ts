// Scripted infrastructure faults, queued through FaultController or `POST /_sim/faults`. Each is
// consumed by the next matching /v1/messages requests (`count` of them, default 1), optionally
// only by requests whose `x-buildfleet-run-id` equals `runId`. `latency` is the exception: it
// adds its delay to every matching request until cleared, unless given a count.
import { z } from 'zod';

const common = {
  count: z.int().min(1).optional(),
  runId: z.string().min(1).optional(),
  /** Overrides the default error message. */
  message: z.string().min(1).optional(),
};

export const faultSpecSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('rate_limit'),
    ...common,
    /** → `retry-after: N` */
    retryAfterSeconds: z.number().min(0).optional(),
    /** → `retry-after-ms: N` */
    retryAfterMs: z.number().min(0).optional(),
    /** → `retry-after: <HTTP-date>`; a number is seconds from now, a string any Date-parsable time. */
    retryAfterDate: z.union([z.number(), z.string().min(1)]).optional(),
  }),
  /** 429 whose error carries `details.error_code: 'enforced_spend_limit_reached'`: retrying cannot help. */
  z.strictObject({ kind: z.literal('spend_cap'), ...common }),
  z.strictObject({
    kind: z.literal('server_error'),
    ...common,
    status: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)]).optional(),
  }),
  /** 529 overloaded_error */
  z.strictObject({ kind: z.literal('overloaded'), ...common }),
  /**
   * An overload episode: every /v1/messages request answers 529 overloaded_error for `durationMs`
   * from the moment the fault is queued (docs api/errors: "529 errors can occur when APIs
   * experience high traffic across all users" — it hits everyone at once, for a while).
   */
  z.strictObject({
    kind: z.literal('overload_episode'),
    durationMs: z.int().min(1),
    runId: z.string().min(1).optional(),
    message: z.string().min(1).optional(),
  }),
  /**
   * 400 invalid_request_error "You have reached your specified API usage limits. You will regain
   * access on <date> at 00:00 UTC." — the real answer to a user-set spend limit (its workspace
   * variant with `workspace: true`); retrying cannot help before that date.
   */
  z.strictObject({
    kind: z.literal('spend_limit'),
    ...common,
    workspace: z.boolean().optional(),
    /** When access resumes; default the first day of next month, 00:00 UTC. */
    resumesAt: z.string().min(1).optional(),
  }),
  /** Any status plus `x-should-retry`, which overrides the SDK's own retry decision. */
  z.strictObject({ kind: z.literal('should_retry'), ...common, status: z.int().min(400).max(599), shouldRetry: z.boolean() }),
  /** The socket is destroyed without an answer. */
  z.strictObject({ kind: z.literal('connection_reset'), ...common }),
  /** Answers normally after `delayMs`. */
  z.strictObject({ kind: z.literal('slow'), ...common, delayMs: z.int().min(0) }),
  z.strictObject({ kind: z.literal('bad_request'), ...common }),
  z.strictObject({ kind: z.literal('unauthorized'), ...common }),
  /** Extra delay for every matching request: `delayMs`, or uniform in [minMs, maxMs]. */
  z.strictObject({
    kind: z.literal('latency'),
    ...common,
    delayMs: z.int().min(0).optional(),
    minMs: z.int().min(0).optional(),
    maxMs: z.int().min(0).optional(),
  }),
  /**
   * A streamed answer starts, then ends with `event: error` (docs build-with-claude/streaming,
   * "Error events": e.g. an overloaded_error mid-stream), after `afterTokens` output tokens or
   * `afterEvents` events (default: right after message_start). A non-streaming request gets the
   * HTTP error of the same type instead (overloaded_error → 529).
   */
  z.strictObject({
    kind: z.literal('stream_error'),
    ...common,
    errorType: z.enum(['overloaded_error', 'api_error', 'rate_limit_error', 'invalid_request_error']).optional(),
    afterTokens: z.int().min(0).optional(),
    afterEvents: z.int().min(1).optional(),
  }),
  /**
   * A streamed answer starts, then goes silent — no deltas, no pings — after `afterEvents` events
   * (default 1: right after message_start) for `stallMs` (default 10 min), then goes on. Not an API
   * behaviour but a network one (a hung connection or proxy), which the fleet's idle timeout must
   * catch. A non-streaming request is answered `stallMs` late, like `slow`.
   */
  z.strictObject({
    kind: z.literal('stream_stall'),
    ...common,
    afterEvents: z.int().min(1).optional(),
    stallMs: z.int().min(0).max(3_600_000).optional(),
  }),
]);

export type FaultSpec = z.infer<typeof faultSpecSchema>;
export type FaultKind = FaultSpec['kind'];
export const FAULT_KINDS: readonly FaultKind[] = faultSpecSchema.options.map((option) => option.shape.kind.value);

/** A fault list as accepted by `POST /_sim/faults`: one fault, an array, or `{faults: [...]}`. */
export const faultListSchema = z.union([
  z.array(faultSpecSchema),
  faultSpecSchema.transform((fault) => [fault]),
  z.strictObject({ faults: z.array(faultSpecSchema) }).transform((list) => list.faults),
]);
