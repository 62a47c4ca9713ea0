// A run's payloads as the API shows them (issue #18): its turns, tool calls, transcript and
// workspace files. A run Redis holds is read from the run engine and shaped by the very functions
// that shape its archive (src/workers/run-archive-of.ts), so it answers the same before and after
// it moves to history; a run Redis no longer holds is read from history (HistoryStore). The run is
// found first, tenant-scoped, by RunReader.requireRun.
//
// Like RunReader, Redis first: a read from Redis is trusted only when the run's record is still
// there after it (every key of a run expires at the same instant), else history answers.
// Secrets: tool results and events are redacted when written (RunEngine); the transcript, tool
// inputs and workspace files are not, so everything is redacted again on the way out.
import { TRANSCRIPT_ROLES } from '../domain/model-message.js';
import { z } from 'zod';
import type { FleetContext } from '../fleet/fleet-context.js';
import type { ArchivedRun, ArchivedToolCall, ArchivedTurn } from '../history/run-archive.js';
import { normalizeWorkspacePath } from '../safety/workspace-path.js';
import { siteStoreOf } from '../sites/site-store-of-config.js';
import { redactText, redactValue } from '../telemetry/redact-secrets.js';
import { microUsdToUsd } from '../domain/usage-cost.js';
import { modelWrittenText, readsProgressUpdates } from '../domain/model-written-text.js';
import type { AssistantBlock } from '../domain/model-message.js';
import { archivedToolCalls, archivedTurns } from '../workers/run-archive-of.js';
import { apiErrors } from './api-errors.js';
import { readHistory } from './history-unavailable.js';
import type { FoundRun } from './run-reader.js';
import type { PayloadPageQuery, toolCallViewSchema, transcriptMessageSchema, turnSummarySchema } from './run-payload-schemas.js';

type TurnSummary = z.infer<typeof turnSummarySchema>;
type ToolCallView = z.infer<typeof toolCallViewSchema>;
type TranscriptMessage = z.infer<typeof transcriptMessageSchema>;

/** An event as the payload views read it: its name, step and fields. */
type PayloadEvent = { event: string; step: number; [field: string]: unknown };

interface RunPayloadSource {
  turns: ArchivedTurn[];
  toolCalls: ArchivedToolCall[];
  events: PayloadEvent[];
  messages: unknown[];
}

const EVENT_PAGE_SIZE = 1_000;

/** A turn's `request` summary (run-archive-of.ts archivedTurns), validated as it is read back.
 * The fields from the turn's `turn-start` event are null when the turn has none. */
const turnRequestSchema = z.object({
  answer_id: z.string().nullable().optional(),
  request_id: z.string().nullable().optional(),
  model: z.string().nullable().optional(),
  decision: z.string().nullable().optional(),
  dispatched_tool_calls: z.int().nonnegative().optional(),
  phase: z.string().nullable().optional(),
  tool_count: z.int().nonnegative().nullable().optional(),
  tool_choice: z.string().nullable().optional(),
  max_tokens: z.int().positive().nullable().optional(),
  thinking_budget_tokens: z.int().positive().nullable().optional(),
  attempt: z.int().positive().nullable().optional(),
  tools_offered: z.array(z.string()),
  message_index: z.int().nonnegative().nullable(),
});

/** A ledger entry (RunEngine StoredToolResult) as read back. */
const storedResultSchema = z.looseObject({
  content: z.string(),
  is_error: z.boolean(),
  output: z.unknown().optional(),
  error_code: z.string().optional(),
  error_reason: z.string().optional(),
});

const transcriptMessageInputSchema = z.looseObject({ role: z.enum(TRANSCRIPT_ROLES), content: z.union([z.string(), z.array(z.unknown())]) });
const toolUseBlockSchema = z.looseObject({ type: z.literal('tool_use'), id: z.string() });
const injectionFlagSchema = z.looseObject({ tool_use_id: z.string(), patterns: z.array(z.string()), source: z.enum(['output', 'error']).optional() });
const toolCallStartSchema = z.looseObject({ tool_use_id: z.string(), attempt: z.int().positive() });

/** The untrusted-data envelope every tool_result is wrapped in (src/domain/tool-result-envelope.ts). */
const UNTRUSTED_ENVELOPE = /^<tool_output\b[^>]*\btrust="untrusted"/;

/** Thrown when a payload read back from Redis or history does not decode: a 500 naming it. */
export class StoredPayloadInvalid extends Error {
  readonly code = 'stored_payload_invalid';
  constructor(runId: string, detail: string) {
    super(`A stored payload of run ${runId} does not decode: ${detail}`);
    this.name = 'StoredPayloadInvalid';
  }
}

/** The entries after position `after`, at most `limit`, and the position to page on from. */
function pageOf<Item>(
  items: readonly Item[],
  positionOf: (item: Item) => number,
  { after, limit }: PayloadPageQuery,
): { items: Item[]; nextAfter: number | null } {
  const rest = items.filter((item) => positionOf(item) > after);
  const page = rest.slice(0, limit);
  const last = page.at(-1);
  return { items: page, nextAfter: rest.length > limit && last !== undefined ? positionOf(last) : null };
}

/** What the model wrote in a transcript message (model-written-text.ts: its text blocks, and its
 * progress updates where the run reads them), redacted; null when it wrote nothing. */
function textOf(message: unknown, progressUpdates: boolean): string | null {
  const parsed = transcriptMessageInputSchema.safeParse(message);
  if (!parsed.success || parsed.data.role !== 'assistant') return null;
  const { content } = parsed.data;
  const written =
    typeof content === 'string'
      ? content.trim()
      : modelWrittenText({ content: content.filter((block): block is AssistantBlock => typeof block === 'object' && block !== null), progressUpdates }).written;
  return written === '' ? null : redactText(written);
}

function turnSummaryOf(runId: string, turn: ArchivedTurn, messages: readonly unknown[], progressUpdates: boolean): TurnSummary {
  const parsed = turnRequestSchema.safeParse(turn.request);
  if (!parsed.success)
    throw new StoredPayloadInvalid(
      runId,
      `turn ${turn.step}'s request summary: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? 'invalid'}`,
    );
  const request = parsed.data;
  const messageIndex = request.message_index;
  return {
    step: turn.step,
    phase: request.phase ?? null,
    toolsOffered: request.tools_offered,
    toolCount: request.tool_count ?? null,
    toolChoice: request.tool_choice ?? null,
    maxTokens: request.max_tokens ?? null,
    thinkingBudgetTokens: request.thinking_budget_tokens ?? null,
    attempt: request.attempt ?? null,
    model: request.model ?? null,
    requestId: request.request_id ?? null,
    answerId: request.answer_id ?? null,
    stopReason: turn.stopReason,
    decision: request.decision ?? null,
    dispatchedToolCalls: request.dispatched_tool_calls ?? 0,
    usage: turn.usage,
    costUsd: microUsdToUsd(turn.costMicroUsd),
    modelDurationMs: turn.modelDurationMs,
    turnDurationMs: turn.turnDurationMs,
    text: messageIndex === null ? null : textOf(messages[messageIndex], progressUpdates),
  };
}

/** The verdict of the tool's output contract, from its ledger entry (tool-outputs.md). */
function verdictOf(result: z.infer<typeof storedResultSchema> | null): Pick<ToolCallView, 'verdict' | 'verdictReason'> {
  if (result === null) return { verdict: null, verdictReason: null };
  if (result.is_error) {
    if (result.error_code === 'ToolOutputInvalid') return { verdict: 'invalid', verdictReason: result.error_reason ?? null };
    return { verdict: 'not_validated', verdictReason: result.error_code ?? null };
  }
  const output = result.output;
  if (output !== null && typeof output === 'object' && (output as { degraded?: unknown }).degraded === true) {
    const reason = (output as { degraded_reason?: unknown }).degraded_reason;
    return { verdict: 'degraded', verdictReason: typeof reason === 'string' ? reason : null };
  }
  return { verdict: 'valid', verdictReason: null };
}

function toolCallViewOf(runId: string, call: ArchivedToolCall, position: number, events: readonly PayloadEvent[]): ToolCallView {
  let result: z.infer<typeof storedResultSchema> | null = null;
  if (call.result !== null && call.result !== undefined) {
    const parsed = storedResultSchema.safeParse(call.result);
    if (!parsed.success) throw new StoredPayloadInvalid(runId, `the result of tool call ${call.toolUseId}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    result = parsed.data;
  }
  const injectionFlags: ToolCallView['injectionFlags'] = [];
  let attempt: number | null = null;
  for (const event of events) {
    if (event.tool_use_id !== call.toolUseId) continue;
    if (event.event === 'tool-output-injection-flag') {
      const flag = injectionFlagSchema.safeParse(event);
      if (flag.success) injectionFlags.push({ patterns: flag.data.patterns, source: flag.data.source ?? 'output' });
    } else if (event.event === 'tool-call-start') {
      const start = toolCallStartSchema.safeParse(event);
      if (start.success) attempt = Math.max(attempt ?? 0, start.data.attempt);
    }
  }
  return {
    position,
    step: call.step,
    toolUseId: call.toolUseId,
    tool: call.tool,
    input: redactValue(call.input ?? null),
    status: call.status,
    errorCode: call.errorCode,
    ...verdictOf(result),
    untrusted: result === null ? null : UNTRUSTED_ENVELOPE.test(result.content),
    injectionFlags,
    attempt,
    durationMs: call.durationMs,
    result:
      result === null
        ? null
        : {
            content: redactText(result.content),
            isError: result.is_error,
            ...(result.output !== undefined ? { output: redactValue(result.output) } : {}),
            ...(result.error_code !== undefined ? { errorCode: result.error_code } : {}),
            ...(result.error_reason !== undefined ? { errorReason: result.error_reason } : {}),
          },
  };
}

/** Tool calls in transcript order (the order of their tool_use blocks): how the archive lists them;
 * history keeps no position, so its rows are put back in this order. */
function inTranscriptOrder(calls: readonly ArchivedToolCall[], messages: readonly unknown[]): ArchivedToolCall[] {
  const order = new Map<string, number>();
  for (const message of messages) {
    const parsed = transcriptMessageInputSchema.safeParse(message);
    if (!parsed.success || parsed.data.role !== 'assistant' || typeof parsed.data.content === 'string') continue;
    for (const block of parsed.data.content) {
      const toolUse = toolUseBlockSchema.safeParse(block);
      if (toolUse.success && !order.has(toolUse.data.id)) order.set(toolUse.data.id, order.size);
    }
  }
  const rank = (call: ArchivedToolCall) => order.get(call.toolUseId) ?? Number.MAX_SAFE_INTEGER;
  return [...calls].sort((left, right) => rank(left) - rank(right));
}

export class RunPayloads {
  constructor(private readonly fleet: FleetContext) {}

  /** GET /v1/runs/:id/turns: one page of the run's turns that answered, in step order. */
  async turns({ found, page }: { found: FoundRun; page: PayloadPageQuery }) {
    const source = await this.readSource(found);
    const { items, nextAfter } = pageOf(source.turns, (turn) => turn.step, page);
    const progressUpdates = readsProgressUpdates(found.run);
    return { turns: items.map((turn) => turnSummaryOf(found.run.id, turn, source.messages, progressUpdates)), nextAfter };
  }

  /** GET /v1/runs/:id/tool-calls: one page of the run's tool calls, in transcript order. */
  async toolCalls({ found, page }: { found: FoundRun; page: PayloadPageQuery }) {
    const source = await this.readSource(found);
    const positioned = source.toolCalls.map((call, position) => ({ call, position }));
    const { items, nextAfter } = pageOf(positioned, (entry) => entry.position, page);
    return { toolCalls: items.map(({ call, position }) => toolCallViewOf(found.run.id, call, position, source.events)), nextAfter };
  }

  /** GET /v1/runs/:id/transcript: one page of the run's messages. */
  async transcript({ found, page }: { found: FoundRun; page: PayloadPageQuery }) {
    const messages = await this.readMessages(found);
    const indexed = messages.map((message, index) => ({ message, index }));
    const { items, nextAfter } = pageOf(indexed, (entry) => entry.index, page);
    return {
      messages: items.map(({ message, index }): TranscriptMessage => {
        const parsed = transcriptMessageInputSchema.safeParse(message);
        if (!parsed.success) throw new StoredPayloadInvalid(found.run.id, `transcript message ${index}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
        return { index, role: parsed.data.role, content: redactValue(parsed.data.content) };
      }),
      nextAfter,
    };
  }

  /** GET /v1/runs/:id/files: one page of the workspace listing, by path. */
  async files({ found, after, limit }: { found: FoundRun; after: string | undefined; limit: number }) {
    let listing: { source: 'workspace' | 'archive'; files: Array<{ path: string; bytes: number }> } | null = null;
    if (found.source === 'redis') {
      const files = await this.fleet.store.listFiles(found.run.id);
      if (await this.stillInRedis(found.run.id)) listing = { source: 'workspace', files };
    }
    listing ??= { source: 'archive', files: (await this.archivedRun(found)).files };
    // The same comparison the listing is sorted by (RunEngine.listFiles).
    const rest = after === undefined ? listing.files : listing.files.filter((file) => file.path.localeCompare(after) > 0);
    const files = rest.slice(0, limit);
    return { source: listing.source, files, nextAfter: rest.length > limit ? (files.at(-1)?.path ?? null) : null };
  }

  /** GET /v1/runs/:id/files/*: one workspace file; once Redis no longer holds the run, the file as
   * the run's latest deployment holds it on the site store (the workspace is not archived). */
  async file({ found, wildcard }: { found: FoundRun; wildcard: string }) {
    let path: string;
    try {
      path = normalizeWorkspacePath(wildcard);
    } catch {
      throw apiErrors.runFileNotFound();
    }
    const runId = found.run.id;
    if (found.source === 'redis') {
      const content = await this.fleet.store.readFile(runId, path);
      if (await this.stillInRedis(runId)) {
        if (content === null) throw apiErrors.runFileNotFound();
        return { path, source: 'workspace' as const, deployId: null, bytes: Buffer.byteLength(content), content: redactText(content) };
      }
    }
    const run = await this.archivedRun(found);
    if (!run.latestDeploy) throw apiErrors.runFileNotFound();
    const content = await siteStoreOf(this.fleet.config).readDeploymentFile({ runId, deployId: run.latestDeploy, path });
    if (content === null) throw apiErrors.runFileNotFound();
    return { path, source: 'deployment' as const, deployId: run.latestDeploy, bytes: Buffer.byteLength(content), content: redactText(content) };
  }

  /** Whether the run's record is still in Redis: read after a read of its other keys, it proves
   * they were read before the run's keys expired (they all expire at the same instant). */
  private async stillInRedis(runId: string): Promise<boolean> {
    const [status] = await this.fleet.store.runStatuses([runId]);
    return status !== undefined && status.state !== 'missing';
  }

  /** The run as history holds it: a run found in Redis whose keys expired since is read again. */
  private async archivedRun(found: FoundRun): Promise<ArchivedRun> {
    if (found.source === 'history') return found.run;
    const history = this.fleet.history;
    const archived = history ? await readHistory(() => history.getRun(found.run.id)) : null;
    if (!archived) throw apiErrors.runNotFound();
    return archived;
  }

  private async readSource(found: FoundRun): Promise<RunPayloadSource> {
    const runId = found.run.id;
    if (found.source === 'redis') {
      const source = await this.fleet.store.readRunPayloadSource(runId);
      if (source && (await this.stillInRedis(runId))) {
        return { turns: archivedTurns(source), toolCalls: archivedToolCalls(source), events: source.events, messages: source.messages };
      }
    }
    const history = this.fleet.history;
    // Found in Redis, gone since, and no history to read it from: the run is gone.
    if (!history || !(await this.archivedRun(found))) throw apiErrors.runNotFound();
    const [turns, toolCalls, messages] = await readHistory(() =>
      Promise.all([history.readTurns(runId), history.readToolCalls(runId), history.readTranscript(runId)]),
    );
    const events: PayloadEvent[] = [];
    for (let cursor = '-'; ;) {
      const page = await readHistory(() => history.readEvents(runId, cursor, EVENT_PAGE_SIZE));
      events.push(...page.map((event) => ({ ...event.data, event: event.event, step: event.step })));
      const last = page.at(-1);
      if (page.length < EVENT_PAGE_SIZE || !last) break;
      cursor = last.streamId;
    }
    return { turns, toolCalls: inTranscriptOrder(toolCalls, messages ?? []), events, messages: messages ?? [] };
  }

  private async readMessages(found: FoundRun): Promise<unknown[]> {
    const runId = found.run.id;
    if (found.source === 'redis') {
      const messages = await this.fleet.store.getMessages(runId);
      if (await this.stillInRedis(runId)) return messages;
    }
    const history = this.fleet.history;
    if (!history) throw apiErrors.runNotFound();
    await this.archivedRun(found);
    return (await readHistory(() => history.readTranscript(runId))) ?? [];
  }
}
