import { describe, expect, it } from 'vitest';
import { runArchiveOf, RunArchiveSourceInvalid } from './run-archive-of.js';
import { runArchiveSchema } from '../history/run-archive.js';
import type { RunArchiveSource, RunRecord } from '../engine/index.js';

const usage = { input_tokens: 10, cache_write_5m_input_tokens: 0, cache_write_1h_input_tokens: 0, cache_read_input_tokens: 5, output_tokens: 3 };
const RUN_ID = 'run_0123456789';

function source(overrides: Partial<RunArchiveSource> = {}, run: Partial<RunRecord> = {}): RunArchiveSource {
  return {
    run: {
      id: RUN_ID, tenant: 'acme', status: 'failed', agent: 'site-builder', phase: 'building', turn: 2, prompt: 'a bakery', model: 'claude-sonnet-4-6', provider: 'anthropic', queueShard: 0, maxTurns: 10, maxTokens: 1024,
      maxTokensCeiling: 1024, thinking: 'off', thinkingBudgetTokens: null, effort: null, thinkingDisplay: null, options: {}, createdAt: '2026-03-02T10:00:00.000Z', updatedAt: '2026-03-02T10:05:00.000Z', traceId: null,
      traceContext: {}, todos: [], usage, costMicroUsd: 70, budget: { costMicroUsd: null, tokens: null, costSetBy: 'run' }, result: null, error: { code: 'max_turns', message: 'ran out of turns' }, latestDeploy: null,
      liveDeploy: null, question: null, finishVerified: false, safeMode: null, pendingPhase: null,
      counters: { endTurnNudges: 0, pauseTurnsInRow: 0, maxTokensContinuations: 0, reemitRequests: 0, driftReprompts: 0, summaryReprompts: 0 }, meta: null, rerunOf: null, input: null, webhook: null, ...run,
    },
    turns: [
      { turn: 0, response: { id: 'msg_1', model: 'claude-sonnet-4-6', stop_reason: 'tool_use', usage, cost_micro_usd: 35, request_id: 'req_1', tools_offered: ['write_file'], model_duration_ms: 500, turn_duration_ms: 520, message_index: 1 }, outcome: { decision: 'tools', nextInput: null, dispatch: [{ runId: RUN_ID, turn: 1, toolUseId: 'toolu_a', name: 'write_file', input: { path: 'a' }, parseMode: 'native' }] } },
      { turn: 1, response: { id: 'msg_2', stop_reason: 'tool_use', usage, cost_micro_usd: 35, tools_offered: ['write_file'], model_duration_ms: 500, turn_duration_ms: 520, message_index: 2 }, outcome: { decision: 'tools', nextInput: null, dispatch: [] } },
      // The last turn's call failed: no answer, so no archived turn.
      { turn: 2, response: null, outcome: null },
    ],
    results: new Map([
      ['toolu_a', { content: 'ok', is_error: false, output: { bytes: 1 } }],
      ['toolu_b', { content: 'not in this tier', is_error: true, error_code: 'tool_not_available' }],
    ]),
    trail: [{ tool: 'write_file', ok: true, phase: 'building', turn: 0, toolUseId: 'toolu_a' }],
    events: [
      { id: '1-0', at: '2026-03-02T10:00:01.000Z', run_id: RUN_ID, step: 0, event: 'tool-call-dispatch', tool: 'write_file', tool_use_id: 'toolu_a', parse_mode: 'native' },
      { id: '1-1', at: '2026-03-02T10:00:02.000Z', run_id: RUN_ID, step: 0, event: 'tool-call-end', tool: 'write_file', tool_use_id: 'toolu_a', ok: true, tool_result_status: 'ok', parse_mode: 'native', duration_ms: 12 },
      { id: '2-0', at: '2026-03-02T10:00:03.000Z', run_id: RUN_ID, step: 1, event: 'tool-call-reject', tool: 'deploy', tool_use_id: 'toolu_b', reason: 'tool_not_available' },
    ],
    messages: [
      { role: 'user', content: 'a bakery' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'write_file', input: { path: 'a' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'ok' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'next' }, { type: 'tool_use', id: 'toolu_b', name: 'deploy', input: {} }, { type: 'tool_use', id: 'toolu_c', name: 'read_file', input: { path: 'b' } }] },
    ],
    files: [{ path: 'index.html', bytes: 120 }],
    ...overrides,
  };
}

describe('runArchiveOf', () => {
  it('shapes a finished run into an archive the history store accepts', () => {
    const archive = runArchiveOf(source());
    expect(runArchiveSchema.safeParse(archive).success).toBe(true);
    expect(archive.run).toMatchObject({ status: 'failed', errorCode: 'max_turns', errorMessage: 'ran out of turns', turns: 2, endedAt: '2026-03-02T10:05:00.000Z' });
    expect(archive.turns.map((turn) => [turn.step, turn.stopReason, turn.costMicroUsd])).toEqual([[0, 'tool_use', 35], [1, 'tool_use', 35]]);
    expect(archive.turns[0]?.request).toMatchObject({ answer_id: 'msg_1', request_id: 'req_1', decision: 'tools', dispatched_tool_calls: 1 });
    // Everything the run view shows, so GET /v1/runs/:id answers the same from history.
    expect(archive.run).toMatchObject({ maxTokens: 1024, thinkingBudgetTokens: null, todos: [], files: [{ path: 'index.html', bytes: 120 }], question: null, optionsTokenBudget: null, meta: null, provider: 'anthropic' });
    expect(runArchiveOf(source({}, { provider: 'vllm' })).run.provider).toBe('vllm');
    expect(archive.events[1]).toEqual({ streamId: '1-1', step: 0, event: 'tool-call-end', at: '2026-03-02T10:00:02.000Z', data: { tool: 'write_file', tool_use_id: 'toolu_a', ok: true, tool_result_status: 'ok', parse_mode: 'native', duration_ms: 12 } });
  });

  it('summarises each turn’s request: its turn-start, and what the answer recorded', () => {
    const recorded = { tools_offered: ['write_file', 'deploy'], model_duration_ms: 850, turn_duration_ms: 910, message_index: 1 };
    const turns = runArchiveOf(
      source({
        turns: [
          { turn: 0, response: { id: 'msg_1', stop_reason: 'tool_use', usage, cost_micro_usd: 35, request_id: 'req_1', ...recorded }, outcome: null },
          // No turn-start event for this turn: its fields from the event are null.
          { turn: 1, response: { id: 'msg_2', stop_reason: 'end_turn', usage, cost_micro_usd: 35, tools_offered: [], model_duration_ms: 0, turn_duration_ms: 1, message_index: null }, outcome: null },
        ],
        events: [
          // The failed attempt's turn-start, then the one that answered: the last one counts.
          { id: '1-0', at: '2026-03-02T10:00:01.000Z', run_id: RUN_ID, step: 0, event: 'turn-start', phase: 'planning', tools: 2, tool_choice: 'any', tool_layout: 'tier_per_request', strict_tools: false, max_tokens: 1024, thinking: 'off', thinking_budget_tokens: null, attempt: 1 },
          { id: '1-1', at: '2026-03-02T10:00:02.000Z', run_id: RUN_ID, step: 0, event: 'turn-start', phase: 'planning', tools: 2, tool_choice: 'any', tool_layout: 'tier_per_request', strict_tools: false, max_tokens: 2048, thinking: 'off', thinking_budget_tokens: null, attempt: 2 },
        ],
      }),
    ).turns;
    expect(turns[0]).toMatchObject({ modelDurationMs: 850, turnDurationMs: 910 });
    expect(turns[0]?.request).toMatchObject({ phase: 'planning', tool_count: 2, tool_choice: 'any', max_tokens: 2048, attempt: 2, tools_offered: ['write_file', 'deploy'], message_index: 1 });
    expect(turns[1]).toMatchObject({ modelDurationMs: 0, turnDurationMs: 1 });
    expect(turns[1]?.request).toMatchObject({ phase: null, tool_choice: null, attempt: null, tools_offered: [], message_index: null });
  });

  it('archives every tool_use of the transcript: ran, refused, and never answered', () => {
    const calls = runArchiveOf(source()).toolCalls;
    expect(calls).toEqual([
      { step: 0, toolUseId: 'toolu_a', tool: 'write_file', input: { path: 'a' }, result: { content: 'ok', is_error: false, output: { bytes: 1 } }, status: 'ok', errorCode: null, durationMs: 12 },
      { step: 1, toolUseId: 'toolu_b', tool: 'deploy', input: {}, result: { content: 'not in this tier', is_error: true, error_code: 'tool_not_available' }, status: 'error', errorCode: 'tool_not_available', durationMs: null },
      // Nothing names its step: the step of the call before it in the same answer.
      { step: 1, toolUseId: 'toolu_c', tool: 'read_file', input: { path: 'b' }, result: null, status: 'unanswered', errorCode: null, durationMs: null },
    ]);
  });

  it('keeps the plan, the token budget option and the site meta of the run', () => {
    const todos = [{ id: 'hero', title: 'Hero section', phase: 'build' as const, done: true }];
    const archive = runArchiveOf(source({}, { todos, options: { tokenBudget: 50_000, scenario: 'happy' }, thinking: 'manual', thinkingBudgetTokens: 2048, meta: { title: 'Bakery', description: 'Fresh bread' } }));
    expect(runArchiveSchema.safeParse(archive).success).toBe(true);
    expect(archive.run).toMatchObject({ todos, optionsTokenBudget: 50_000, thinking: 'manual', thinkingBudgetTokens: 2048, meta: { title: 'Bakery', description: 'Fresh bread' } });
  });

  it('refuses a run that has not ended, and a turn whose committed response does not decode', () => {
    expect(() => runArchiveOf(source({}, { status: 'running' }))).toThrow(RunArchiveSourceInvalid);
    expect(() => runArchiveOf(source({ turns: [{ turn: 0, response: { stop_reason: 'end_turn' }, outcome: null }] }))).toThrow(/turn 0's committed response does not decode/);
  });
});
