// HTTP tools (issue #33 item 2): a tool whose work is done by an operator's service. The fleet POSTs
// the call to the URL the tool's definition declares and takes the answer through the same
// pipeline as every upstream — size cap, content type, strict parse, then the tool's output schema
// and invariants, failing closed or degrading as its contract says — with every guarantee a
// built-in tool has: the kill switch and safe mode act on a `write` tool, a call is answered once.
//
// The request (docs/agents.md#http-tools says what the far side must do):
//   POST <url>, Content-Type: application/json, body
//     {"tool": name, "run_id", "tool_use_id", "idempotency_key", "input": {...the validated input}}
//   Idempotency-Key: the same key — derived from the run and the tool_use id (httpToolIdempotencyKey),
//     so every attempt of one call carries it and no two calls share it;
//   buildfleet-tool-timestamp / buildfleet-tool-signature: signed like a webhook delivery (the
//     run's tenant's `whsec_` secret, HMAC-SHA256 over `<timestamp>.<body>`,
//     src/webhooks/webhook-signature.ts), so the service knows the call is the fleet's and not replayed.
// Egress goes through the SSRF guard and the operator's allowlist (fetch-with-limits.ts): a URL on
// BUILDFLEET_FETCH_ALLOWLIST is trusted, any other must resolve to a public address.
//
// What an answer means:
//   2xx     the output, through the pipeline;
//   3xx/4xx the service refused the call: `http_tool_rejected`, an is_error result quoting its
//           answer as data — the model may fix its input and call again (a new call, a new key);
//   408, 429, 5xx, no answer, a timeout: the outcome is unknown, so the call is attempted again by
//           the fleet with the same key (an infrastructure failure: decide-tool-failure.ts), never
//           handed to the model, whose retry would be a new call with a new key and, for a write,
//           could make its effect twice.
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { quoteUntrusted } from '../../domain/quote-untrusted.js';
import { webhookSigningSecret, signWebhook } from '../../webhooks/webhook-signature.js';
import { fetchPolicyFor } from '../http/check-fetch-target.js';
import { fetchWithLimits } from '../http/fetch-with-limits.js';
import { maxCharactersOf, type ToolOutputContract } from '../../domain/tool-output-contract.js';
import { validateUpstreamResponse } from '../output/validate-tool-output.js';
import { defineTool, ToolError, type ToolContext, type ToolImplementation } from '../tool-types.js';

export const HTTP_TOOL_HEADERS = {
  idempotencyKey: 'idempotency-key',
  timestamp: 'buildfleet-tool-timestamp',
  signature: 'buildfleet-tool-signature',
} as const;

/** The body of every call. */
export interface HttpToolRequestBody {
  tool: string;
  run_id: string;
  tool_use_id: string;
  idempotency_key: string;
  input: unknown;
}

/** Default and largest time a call may take; under a tool job's 60 s, like the screenshot's. */
export const HTTP_TOOL_TIMEOUT_MS = { default: 10_000, max: 55_000 } as const;

export interface HttpToolDefinition<Schema extends z.ZodType, Output> {
  name: string;
  description: string;
  inputSchema: Schema;
  /** The service's endpoint, http(s), declared by the operator. */
  url: string;
  /** `write`: changes something — refused by the kill switch and skip_writes safe mode. */
  effect: 'read' | 'write';
  /** What the answer must be. `contentTypes` defaults to application/json. */
  output: ToolOutputContract<Output>;
  timeoutMs?: number;
}

/** An attempt's outcome is unknown (no answer, or one that says "try again"): the fleet attempts
 * the call again with the same key; the model never sees it. */
export class HttpToolUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HttpToolUnavailable';
  }
}

/** The key every attempt of one call carries: the run and the tool_use id, hashed (a tool_use id
 * is the model's string; the key is plain hex whatever it holds). */
export function httpToolIdempotencyKey(runId: string, toolUseId: string): string {
  return `bfk_${createHash('sha256').update(`${runId}\u0000${toolUseId}`, 'utf8').digest('hex').slice(0, 40)}`;
}

const RETRIED_STATUSES: ReadonlySet<number> = new Set([408, 425, 429]);

function checkDefinition(definition: HttpToolDefinition<z.ZodType, unknown>): void {
  let url: URL;
  try {
    url = new URL(definition.url);
  } catch {
    throw new Error(`HTTP tool ${definition.name}: url ${JSON.stringify(definition.url)} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`HTTP tool ${definition.name}: url must be http(s), not ${url.protocol}`);
  if (url.username || url.password) throw new Error(`HTTP tool ${definition.name}: url must not carry credentials`);
  const timeout = definition.timeoutMs ?? HTTP_TOOL_TIMEOUT_MS.default;
  if (!Number.isInteger(timeout) || timeout < 1000 || timeout > HTTP_TOOL_TIMEOUT_MS.max) {
    throw new Error(`HTTP tool ${definition.name}: timeoutMs must be a whole number from 1000 to ${HTTP_TOOL_TIMEOUT_MS.max}, not ${timeout}`);
  }
}

async function callService(definition: HttpToolDefinition<z.ZodType, unknown>, input: unknown, context: ToolContext): Promise<unknown> {
  const fleetSecret = context.config.BUILDFLEET_WEBHOOK_SECRET;
  if (!fleetSecret) throw new HttpToolUnavailable(`HTTP tool ${definition.name} signs its calls with BUILDFLEET_WEBHOOK_SECRET, which is not set`);
  const idempotencyKey = httpToolIdempotencyKey(context.runId, context.toolUseId);
  const payload: HttpToolRequestBody = { tool: definition.name, run_id: context.runId, tool_use_id: context.toolUseId, idempotency_key: idempotencyKey, input };
  const body = JSON.stringify(payload);
  const timestamp = Math.floor(Date.now() / 1000);
  const secret = webhookSigningSecret({ fleetSecret, tenant: context.run.tenant });
  const maxBytes = maxCharactersOf(definition.output);
  let response: Awaited<ReturnType<typeof fetchWithLimits>>;
  try {
    response = await fetchWithLimits({
      url: definition.url,
      policy: fetchPolicyFor(context),
      signal: context.signal,
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        [HTTP_TOOL_HEADERS.idempotencyKey]: idempotencyKey,
        [HTTP_TOOL_HEADERS.timestamp]: String(timestamp),
        [HTTP_TOOL_HEADERS.signature]: signWebhook({ secret, timestamp, body }),
      },
      timeoutMs: definition.timeoutMs ?? HTTP_TOOL_TIMEOUT_MS.default,
      maxBytes,
    });
  } catch (error) {
    // Sent, perhaps, and not answered: attempted again with the same key, not told to the model.
    if (ToolError.isInstance(error) && (error.code === 'fetch_timeout' || error.code === 'fetch_failed')) throw new HttpToolUnavailable(error.message);
    throw error;
  }
  const excerpt = () => quoteUntrusted(response.body.subarray(0, 300).toString('utf8'), { maxCharacters: 300 });
  if (response.status >= 500 || RETRIED_STATUSES.has(response.status)) {
    throw new HttpToolUnavailable(`${definition.name}'s service answered ${response.status}: ${excerpt()}`);
  }
  if (response.status < 200 || response.status > 299) {
    throw new ToolError('http_tool_rejected', `${definition.name}'s service refused the call with ${response.status}: ${excerpt()}`);
  }
  const validated = validateUpstreamResponse({
    response: { ...response, finalUrl: definition.url },
    expect: { contentTypes: definition.output.contentTypes ?? ['application/json'], maxBytes },
  });
  return validated.kind === 'json' ? validated.value : validated.kind === 'text' ? validated.text : undefined;
}

/** A tool served by an operator's HTTP endpoint (see the header). The definition is checked here. */
export function defineHttpTool<Schema extends z.ZodType, Output>(definition: HttpToolDefinition<Schema, Output>): ToolImplementation<Schema, Output> {
  checkDefinition(definition as HttpToolDefinition<z.ZodType, unknown>);
  return defineTool({
    name: definition.name,
    description: definition.description,
    inputSchema: definition.inputSchema,
    output: { contentTypes: ['application/json'], ...definition.output },
    writes: definition.effect === 'write',
    // Every attempt of a call carries the same key: the service makes its effect once (the
    // documented contract), so the fleet may attempt it again after an unknown outcome.
    idempotent: true,
    // The service is the call's upstream: invalid outputs from it trip its scope, not the fleet's.
    serviceUrl: definition.url,
    execute: (input, context) => callService(definition as HttpToolDefinition<z.ZodType, unknown>, input, context),
  });
}
