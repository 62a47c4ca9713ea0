// A finished run as the engine holds it (RunEngine.readRunForArchive) turned into the RunArchive
// the history store writes (src/history/run-archive.ts). Pure: the archive worker reads, this
// shapes, HistoryStore.archiveRun validates the result once more before a row is written.
import { z } from 'zod';
import { usageByClassSchema } from '../domain/usage.js';
import { isTerminal } from '../domain/run-outcomes.js';
import type { RunArchiveSource, StoredEvent } from '../engine/index.js';
import type { ArchivedEvent, ArchivedToolCall, ArchivedTurn, RunArchive } from '../history/run-archive.js';

/** A turn hash's `response`: the summary of the answer run-model-turn.ts commits (its content is
 * the assistant message in the transcript). Validated: a turn that does not decode is refused. */
const committedResponseSchema = z.looseObject({
  id: z.string().optional(),
  model: z.string().optional(),
  stop_reason: z.string().nullable().optional(),
  usage: usageByClassSchema,
  cost_micro_usd: z.int().nonnegative(),
  request_id: z.string().nullable().optional(),
  // What GET /v1/runs/:id/turns shows of the request (run-model-turn.ts records them with the answer).
  tools_offered: z.array(z.string()),
  model_duration_ms: z.int().nonnegative(),
  turn_duration_ms: z.int().nonnegative(),
  /** The assistant message's index in the transcript; null when the answer added none. */
  message_index: z.int().nonnegative().nullable(),
});

/** The fields of a `turn-start` event (run-model-turn.ts) a turn's request summary keeps. */
const turnStartSchema = z.looseObject({
  phase: z.string().optional(),
  tools: z.int().nonnegative().optional(),
  tool_choice: z.string().optional(),
  max_tokens: z.int().positive().optional(),
  thinking_budget_tokens: z.int().positive().nullable().optional(),
  attempt: z.int().positive().optional(),
});

/** A tool_use block of an assistant message in the transcript. */
const toolUseBlockSchema = z.looseObject({ type: z.literal('tool_use'), id: z.string().min(1), name: z.string().min(1), input: z.unknown() });
const assistantMessageSchema = z.looseObject({ role: z.literal('assistant'), content: z.array(z.unknown()) });

export class RunArchiveSourceInvalid extends Error {
  readonly code = 'run_archive_source_invalid';
  constructor(runId: string, detail: string) {
    super(`The run ${runId} cannot be archived: ${detail}`);
    this.name = 'RunArchiveSourceInvalid';
  }
}

const EVENT_ENVELOPE = new Set(['id', 'at', 'run_id', 'step', 'event']);

function archivedEvent(event: StoredEvent): ArchivedEvent {
  const data: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(event)) if (!EVENT_ENVELOPE.has(field)) data[field] = value;
  return { streamId: event.id, step: event.step, event: event.event, at: event.at, data };
}

/**
 * Turns: every turn hash with a committed answer (a turn whose call failed has no answer and its
 * paid usage is on the run only). `request` summarises the call, not the request itself (the
 * transcript holds the messages once): answer and request ids, model, the turn's decision; phase,
 * tool count, tool_choice, max_tokens and attempt from the turn's last `turn-start` event (the
 * attempt that answered); the tools offered and the assistant message's transcript index from the
 * committed answer. Exported for the API's reads of a live run (src/api/run-payloads.ts), so a run
 * shows the same turns before and after it is archived.
 */
export function archivedTurns(source: RunArchiveSource): ArchivedTurn[] {
  const turnStarts = new Map<number, z.infer<typeof turnStartSchema>>();
  for (const event of source.events) {
    if (event.event !== 'turn-start') continue;
    const parsed = turnStartSchema.safeParse(event);
    if (parsed.success) turnStarts.set(event.step, parsed.data);
  }
  const turns: ArchivedTurn[] = [];
  for (const turn of source.turns) {
    if (turn.response === null) continue;
    const parsed = committedResponseSchema.safeParse(turn.response);
    if (!parsed.success)
      throw new RunArchiveSourceInvalid(
        source.run.id,
        `turn ${turn.turn}'s committed response does not decode (${parsed.error.issues[0]?.message ?? 'invalid'})`,
      );
    const response = parsed.data;
    const started = turnStarts.get(turn.turn);
    turns.push({
      step: turn.turn,
      stopReason: response.stop_reason ?? null,
      usage: response.usage,
      costMicroUsd: response.cost_micro_usd,
      modelDurationMs: response.model_duration_ms,
      turnDurationMs: response.turn_duration_ms,
      request: {
        answer_id: response.id ?? null,
        request_id: response.request_id ?? null,
        model: response.model ?? null,
        decision: turn.outcome?.decision ?? null,
        dispatched_tool_calls: turn.outcome?.dispatch.length ?? 0,
        phase: started?.phase ?? null,
        tool_count: started?.tools ?? null,
        tool_choice: started?.tool_choice ?? null,
        max_tokens: started?.max_tokens ?? null,
        thinking_budget_tokens: started?.thinking_budget_tokens ?? null,
        attempt: started?.attempt ?? null,
        tools_offered: response.tools_offered,
        message_index: response.message_index,
      },
    });
  }
  return turns;
}

/**
 * Tool calls: every tool_use the model made, in transcript order, with its ledger entry. The step is
 * the turn that handled the call as its events say (`tool-call-dispatch`, `tool-call-reject`, a tool
 * job's own events), else the turn whose outcome dispatched it, else its trail entry's turn, else
 * the step of the call before it (a call the run ended before handling: `unanswered`). Exported for
 * the API's reads of a live run, like archivedTurns.
 */
export function archivedToolCalls(source: RunArchiveSource): ArchivedToolCall[] {
  const stepOf = new Map<string, number>();
  const durationOf = new Map<string, number>();
  for (const event of source.events) {
    const id = 'tool_use_id' in event ? event.tool_use_id : undefined;
    if (typeof id !== 'string') continue;
    if (!stepOf.has(id)) stepOf.set(id, event.step);
    if (event.event === 'tool-call-end' && typeof event.duration_ms === 'number' && Number.isInteger(event.duration_ms) && event.duration_ms >= 0)
      durationOf.set(id, event.duration_ms);
  }
  for (const turn of source.turns) for (const call of turn.outcome?.dispatch ?? []) if (!stepOf.has(call.toolUseId)) stepOf.set(call.toolUseId, turn.turn);
  for (const entry of source.trail) if (!stepOf.has(entry.toolUseId)) stepOf.set(entry.toolUseId, entry.turn);

  const calls: ArchivedToolCall[] = [];
  const seen = new Set<string>();
  let previousStep = 0;
  for (const message of source.messages) {
    const assistant = assistantMessageSchema.safeParse(message);
    if (!assistant.success) continue;
    for (const block of assistant.data.content) {
      const toolUse = toolUseBlockSchema.safeParse(block);
      // An id the model repeated within the run is one call in the ledger (it holds one result per id).
      if (!toolUse.success || seen.has(toolUse.data.id)) continue;
      seen.add(toolUse.data.id);
      const step = stepOf.get(toolUse.data.id) ?? previousStep;
      previousStep = step;
      const result = source.results.get(toolUse.data.id) ?? null;
      calls.push({
        step,
        toolUseId: toolUse.data.id,
        tool: toolUse.data.name,
        input: toolUse.data.input ?? null,
        result,
        status: result === null ? 'unanswered' : result.is_error ? 'error' : 'ok',
        errorCode: result?.is_error ? (result.error_code ?? null) : null,
        durationMs: durationOf.get(toolUse.data.id) ?? null,
      });
    }
  }
  return calls;
}

/** The RunArchive of a run that ended. */
export function runArchiveOf(source: RunArchiveSource): RunArchive {
  const { run } = source;
  if (!isTerminal(run.status)) throw new RunArchiveSourceInvalid(run.id, `it has not ended (status ${run.status})`);
  return {
    run: {
      id: run.id,
      tenant: run.tenant,
      status: run.status as RunArchive['run']['status'],
      errorCode: run.error?.code ?? null,
      errorMessage: run.error?.message ?? null,
      model: run.model,
      provider: run.provider,
      prompt: run.prompt,
      agent: run.agent,
      phase: run.phase,
      turns: run.turn,
      usage: run.usage,
      costMicroUsd: run.costMicroUsd,
      budget: run.budget,
      result: run.result,
      latestDeploy: run.latestDeploy,
      liveDeploy: run.liveDeploy,
      traceId: run.traceId,
      maxTokens: run.maxTokens,
      thinking: run.thinking,
      thinkingBudgetTokens: run.thinkingBudgetTokens,
      effort: run.effort,
      thinkingDisplay: run.thinkingDisplay,
      todos: run.todos,
      files: source.files,
      question: run.question,
      optionsTokenBudget: run.options.tokenBudget ?? null,
      meta: run.meta,
      rerunOf: run.rerunOf,
      input: run.input,
      createdAt: run.createdAt,
      // The terminal record's last transition is the end (bfEndRun sets updatedAt).
      endedAt: run.updatedAt,
    },
    turns: archivedTurns(source),
    toolCalls: archivedToolCalls(source),
    events: source.events.map(archivedEvent),
    messages: source.messages,
  };
}
