// MCP tools (issue #33 item 2): the tools of a Model Context Protocol server, reached through the
// official TypeScript SDK (@modelcontextprotocol/sdk) over Streamable HTTP or, for a local server,
// stdio. connectMcpTools connects once (at a process's start), lists the server's tools and makes
// a ToolImplementation of each one the definition names — with the server's own input schema,
// renamed or re-described where the definition says — so each call has the guarantees of a
// built-in tool:
//   - the input is validated against the server's JSON Schema before the call (ajv, strict);
//   - `isError: true` becomes an is_error result (`mcp_tool_error`, the text quoted as data);
//   - a tool that declares an `outputSchema` must answer `structuredContent` that matches it, or
//     the output is invalid (`schema_invalid:<path>`) and fails closed or degrades as declared;
//   - the output is what every tool result is to the model: data inside the fleet's untrusted
//     wrapper, never instructions;
//   - the server is the calls' upstream for the kill switch (`upstream:<tool>:<host>`; a stdio
//     server's host is `stdio-<command>`), and `write` tools are refused by it and by safe mode.
// Streamable HTTP goes through the SSRF guard and the operator's allowlist (the SDK's `fetch`
// option): a server on a private address must be on BUILDFLEET_FETCH_ALLOWLIST.
import { basename } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { quoteUntrusted } from '../../domain/quote-untrusted.js';
import { createJsonSchemaValidator } from '../../parsing/index.js';
import { guardedFetch } from '../../safety/ssrf-guard-fetch.js';
import { checkFetchTarget, isAllowlistedTarget, type FetchTargetPolicy } from '../http/check-fetch-target.js';
import { ToolOutputInvalid } from '../output/tool-output-invalid.js';
import { defineTool, ToolError, type ToolImplementation } from '../tool-types.js';

import type { McpServerSpec } from '../../domain/mcp-server-spec.js';

export type { McpServerSpec };

/** How one of the server's tools is offered. */
export interface McpToolChoice {
  /** `write`: changes something — refused by the kill switch and skip_writes safe mode. */
  effect: 'read' | 'write';
  /** The name the model sees (default the server's). */
  name?: string;
  /** The description the model sees (default the server's). */
  description?: string;
}

export interface McpToolsetDefinition {
  server: McpServerSpec;
  /** The server's tools to offer, by the server's name. */
  tools: Record<string, McpToolChoice>;
  /** Each call's deadline; default 30 s, at most 55 s (under a tool job's 60 s). */
  timeoutMs?: number;
  /** What an invalid output does (default fail_closed). */
  mode?: 'fail_closed' | 'degrade';
}

export interface McpToolset {
  tools: ToolImplementation[];
  /** The server's JSON Schema of each offered tool's input, by the name the model sees. */
  inputJsonSchemas: Record<string, Record<string, unknown>>;
  close(): Promise<void>;
}

const CALL_TIMEOUT_MS = { default: 30_000, max: 55_000 } as const;

/** The SDK's fetch, through the SSRF guard: every request's target checked against the policy. */
function guardedFetchLike(policy: FetchTargetPolicy) {
  return async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = checkFetchTarget({ url: String(input), policy, addressGuarded: true });
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'POST' && method !== 'DELETE') throw new Error(`MCP transport asked for ${method}, which the fleet does not send`);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => (headers[key] = value));
    return guardedFetch(url, {
      method,
      headers,
      ...(typeof init?.body === 'string' ? { body: init.body } : {}),
      signal: init?.signal ?? new AbortController().signal,
      trusted: isAllowlistedTarget({ url, policy }),
    });
  };
}

/** The call's upstream for the kill switch: the server's URL, or a stand-in naming a stdio command. */
function serverUrlOf(server: McpServerSpec): string {
  if ('url' in server) return server.url;
  return `stdio://stdio-${
    basename(server.command)
      .replace(/[^A-Za-z0-9-]/g, '-')
      .slice(0, 60) || 'server'
  }`;
}

/** A zod schema that checks a value against the server's JSON Schema (the checkToolCall step). */
function inputSchemaOf(name: string, jsonSchema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  const validate = createJsonSchemaValidator([{ name, input_schema: jsonSchema }]);
  return z.record(z.string(), z.unknown()).superRefine((value, context) => {
    const checked = validate(name, value);
    if (!checked.ok) context.addIssue({ code: 'custom', message: checked.reason });
  });
}

/** The answer's text blocks, for a refusal's message or an output without structuredContent. */
function textsOf(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((block: { type?: unknown; text?: unknown }) => (block?.type === 'text' && typeof block.text === 'string' ? [block.text] : []));
}

/** What the SDK's client throws when a tool with an outputSchema answers without structuredContent
 * (InvalidRequest) or with one off the schema (InvalidParams): it checks both itself
 * (@modelcontextprotocol/sdk client/index.js, callTool), so the fleet does not check them again. */
const OUTPUT_SCHEMA_REFUSALS =
  /has an output schema but did not return structured content|structured content does not match|failed to validate structured content/i;

/** One call. An answer the SDK refused for the tool's outputSchema is an invalid output, not a
 * failed call. Any other McpError (a timeout, a closed connection) is an infrastructure failure:
 * attempted again for a read, an unknown outcome for a write. */
async function callChecked(
  client: Client,
  {
    remoteName,
    name,
    input,
    signal,
    timeoutMs,
    hasOutputSchema,
  }: { remoteName: string; name: string; input: unknown; signal: AbortSignal; timeoutMs: number; hasOutputSchema: boolean },
) {
  try {
    return await client.callTool({ name: remoteName, arguments: input as Record<string, unknown> }, undefined, { signal, timeout: timeoutMs });
  } catch (error) {
    const refusedOutput = error instanceof McpError && (error.code === ErrorCode.InvalidParams || error.code === ErrorCode.InvalidRequest);
    if (hasOutputSchema && refusedOutput && OUTPUT_SCHEMA_REFUSALS.test(error.message)) {
      throw new ToolOutputInvalid(
        'schema_invalid:(root)',
        `${name}'s answer does not meet its outputSchema: ${quoteUntrusted(error.message, { maxCharacters: 200 })}`,
      );
    }
    throw error;
  }
}

/** Connects to the server, lists its tools and makes the named ones tools of the fleet. A named
 * tool the server does not have, or a timeout out of bounds, is an error here, at start. */
export async function connectMcpTools(definition: McpToolsetDefinition, { fetchPolicy }: { fetchPolicy: FetchTargetPolicy }): Promise<McpToolset> {
  const timeoutMs = definition.timeoutMs ?? CALL_TIMEOUT_MS.default;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1000 || timeoutMs > CALL_TIMEOUT_MS.max) {
    throw new Error(`MCP tools: timeoutMs must be a whole number from 1000 to ${CALL_TIMEOUT_MS.max}, not ${timeoutMs}`);
  }
  const { server } = definition;
  const transport =
    'url' in server
      ? new StreamableHTTPClientTransport(checkFetchTarget({ url: server.url, policy: fetchPolicy, addressGuarded: true }), {
          fetch: guardedFetchLike(fetchPolicy),
        })
      : new StdioClientTransport({
          command: server.command,
          args: server.args ?? [],
          ...(server.env ? { env: server.env } : {}),
          ...(server.cwd ? { cwd: server.cwd } : {}),
          stderr: 'ignore',
        });
  const client = new Client({ name: 'buildfleet', version: '0.1.0' });
  await client.connect(transport);
  try {
    const { tools: listed } = await client.listTools();
    const serverUrl = serverUrlOf(server);
    const tools: ToolImplementation[] = [];
    const inputJsonSchemas: Record<string, Record<string, unknown>> = {};
    for (const [remoteName, choice] of Object.entries(definition.tools)) {
      const remote = listed.find((tool) => tool.name === remoteName);
      if (!remote) throw new Error(`MCP server ${serverUrl} has no tool ${remoteName} (it lists: ${listed.map((tool) => tool.name).join(', ') || 'none'})`);
      const name = choice.name ?? remoteName;
      const inputJsonSchema = remote.inputSchema as Record<string, unknown>;
      inputJsonSchemas[name] = inputJsonSchema;
      const hasOutputSchema = remote.outputSchema !== undefined;
      tools.push(
        defineTool({
          name,
          description: choice.description ?? remote.description ?? remoteName,
          inputSchema: inputSchemaOf(name, inputJsonSchema),
          output: { schema: z.unknown(), mode: definition.mode ?? 'fail_closed' },
          writes: choice.effect === 'write',
          // MCP carries no idempotency key: a call whose outcome is unknown is not made again.
          idempotent: choice.effect === 'read',
          serviceUrl: serverUrl,
          async execute(input, context) {
            const result = await callChecked(client, { remoteName, name, input, signal: context.signal, timeoutMs, hasOutputSchema });
            if (result.isError === true) {
              throw new ToolError(
                'mcp_tool_error',
                `${name} failed: ${quoteUntrusted(textsOf(result.content).join('\n') || '(no text)', { maxCharacters: 500 })}`,
              );
            }
            // With an outputSchema the SDK has checked structuredContent already (callChecked).
            return result.structuredContent ?? { content: textsOf(result.content) };
          },
        }),
      );
    }
    return { tools, inputJsonSchemas, close: () => client.close() };
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
}
