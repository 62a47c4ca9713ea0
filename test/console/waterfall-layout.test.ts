// The run waterfall's layout (console/src/waterfall-layout.ts) and the timeline's durations
// (console/src/event-durations.ts) on a run's events as the API sends them: a model call refused
// with a 429 and retried after its rate-limit wait, three parallel tool calls, a phase change, a
// question the user answers three seconds later, and the end.
import { describe, expect, it } from 'vitest';
import { eventDurations } from '../../console/src/event-durations.js';
import { layoutWaterfall, type WaterfallEvent } from '../../console/src/waterfall-layout.js';

const START = Date.parse('2026-03-01T10:00:00.000Z');
let sequence = 0;
/** An event `offsetMs` after the run's start, with the fields its name declares. */
function at(offsetMs: number, step: number, event: string, fields: Record<string, unknown> = {}): WaterfallEvent {
  sequence += 1;
  return { id: `${START + offsetMs}-${sequence}`, run_id: 'run_waterfall01', step, event, at: new Date(START + offsetMs).toISOString(), ...fields };
}

const usage = { input_tokens: 900, cache_write_5m_input_tokens: 0, cache_write_1h_input_tokens: 0, cache_read_input_tokens: 100, output_tokens: 250 };

const EVENTS: WaterfallEvent[] = [
  at(0, 0, 'run-create', { model: 'claude-sonnet-4-5', max_tokens: 4096 }),
  at(10, 1, 'turn-start', { phase: 'planning', attempt: 1 }),
  at(52, 1, 'model-call-fail', { status: 429, error_type: 'rate_limit_error', outcome: 'rate_limited', message: 'slow down', attempt: 1, duration_ms: 40 }),
  at(65, 1, 'model-rate-limit-wait', { provider: 'anthropic', rate_limit_class: 'sonnet', wait_ms: 1000, cycle: 1 }),
  at(1070, 1, 'turn-start', { phase: 'planning', attempt: 2 }),
  at(1398, 1, 'model-call-end', {
    stop_reason: 'tool_use',
    usage,
    cost_usd: 0.0123,
    tool_uses: ['write_file', 'write_file', 'plan'],
    duration_ms: 320,
    first_token_ms: 120,
  }),
  at(1401, 1, 'tool-call-dispatch', { tool: 'write_file', tool_use_id: 'toolu_a' }),
  at(1401, 1, 'tool-call-dispatch', { tool: 'write_file', tool_use_id: 'toolu_b' }),
  at(1402, 1, 'tool-call-dispatch', { tool: 'plan', tool_use_id: 'toolu_c' }),
  at(1410, 1, 'tool-call-start', { tool: 'write_file', tool_use_id: 'toolu_a', attempt: 1 }),
  at(1412, 1, 'tool-call-start', { tool: 'write_file', tool_use_id: 'toolu_b', attempt: 1 }),
  at(1415, 1, 'tool-call-start', { tool: 'plan', tool_use_id: 'toolu_c', attempt: 1 }),
  at(1500, 1, 'tool-call-end', { tool: 'write_file', tool_use_id: 'toolu_a', ok: true, duration_ms: 88 }),
  at(1520, 1, 'tool-call-end', { tool: 'plan', tool_use_id: 'toolu_c', ok: false, error_code: 'invalid_input', duration_ms: 104 }),
  at(1700, 1, 'tool-call-end', { tool: 'write_file', tool_use_id: 'toolu_b', ok: true, duration_ms: 286 }),
  at(1705, 2, 'phase-change', { from: 'planning', to: 'building' }),
  at(1710, 2, 'turn-start', { phase: 'building', attempt: 1 }),
  at(1995, 2, 'model-call-end', { stop_reason: 'tool_use', usage, cost_usd: 0.01, tool_uses: ['ask_user'], duration_ms: 280, first_token_ms: 60 }),
  at(2001, 2, 'input-wait', { question: 'Which colours?', tool_use_id: 'toolu_q' }),
  at(5000, 3, 'input-receive', { tool_use_id: 'toolu_q', answer: 'Warm browns' }),
  at(5010, 3, 'turn-start', { phase: 'building', attempt: 1 }),
  at(5302, 3, 'model-call-end', { stop_reason: 'end_turn', usage, cost_usd: 0.02, tool_uses: [], duration_ms: 290 }),
  at(5310, 3, 'run-end', { status: 'succeeded' }),
];

describe('layoutWaterfall', () => {
  const layout = layoutWaterfall({ events: EVENTS });
  const bar = (predicate: (bar: (typeof layout.bars)[number]) => boolean) => {
    const found = layout.bars.find(predicate);
    if (!found) throw new Error('no such bar');
    return found;
  };

  it('puts the axis from the first event to the last', () => {
    expect(layout.startedAt).toBe(START);
    expect(layout.totalMs).toBe(5310);
  });

  it('draws each model call from its turn-start for its duration, with its time to first token, tokens and cost', () => {
    const calls = layout.bars.filter((entry) => entry.kind === 'model');
    expect(calls.map((call) => [call.step, call.status, call.startMs, call.endMs])).toEqual([
      [1, 'failed', 10, 50],
      [1, 'ok', 1070, 1390],
      [2, 'ok', 1710, 1990],
      [3, 'ok', 5010, 5300],
    ]);
    expect(calls[0]).toMatchObject({ attempt: 1, failure: '429 rate_limit_error rate_limited' });
    expect(calls[1]).toMatchObject({ attempt: 2, firstTokenMs: 120, inputTokens: 1000, outputTokens: 250, costUsd: 0.0123, stopReason: 'tool_use' });
    expect(calls[3]!.firstTokenMs).toBeUndefined();
  });

  it('shows the retry after the 429 as its rate-limit wait, not a generic backoff', () => {
    const waits = layout.bars.filter((entry) => entry.kind === 'wait');
    expect(waits).toHaveLength(1);
    expect(waits[0]).toMatchObject({ label: 'rate-limit wait', detail: 'anthropic / sonnet', startMs: 65, endMs: 1065, open: false });
  });

  it('puts parallel tool calls on lanes of their own, with their verdicts and durations', () => {
    const tools = layout.bars.filter((entry) => entry.kind === 'tool');
    expect(tools.map((tool) => [tool.toolUseId, tool.lane, tool.lanes, tool.status, tool.durationMs])).toEqual([
      ['toolu_a', 0, 3, 'ok', 88],
      ['toolu_b', 1, 3, 'ok', 286],
      ['toolu_c', 2, 3, 'failed', 104],
    ]);
    expect(bar((entry) => entry.toolUseId === 'toolu_a')).toMatchObject({ startMs: 1410, endMs: 1500, queuedFromMs: 1401 });
    expect(bar((entry) => entry.toolUseId === 'toolu_c').failure).toBe('invalid_input');
  });

  it('shows the wait for the user from the question to the answer', () => {
    expect(bar((entry) => entry.kind === 'user')).toMatchObject({
      startMs: 2001,
      endMs: 5000,
      status: 'ok',
      open: false,
      label: "waiting for the user's answer",
      detail: 'Which colours?',
    });
  });

  it('marks the phase change and the end', () => {
    expect(layout.markers).toEqual([
      expect.objectContaining({ kind: 'phase', atMs: 1705, label: 'planning → building' }),
      expect.objectContaining({ kind: 'run-end', atMs: 5310, label: 'ended succeeded' }),
    ]);
  });

  it('walks the critical path back from the end: the longest of the parallel calls, the wait, the refused call', () => {
    const critical = layout.bars.filter((entry) => entry.critical).map((entry) => entry.toolUseId ?? `${entry.kind}:${entry.step}:${entry.startMs}`);
    expect(critical).toEqual(['model:1:10', 'wait:1:65', 'model:1:1070', 'toolu_b', 'model:2:1710', 'toolu_q', 'model:3:5010']);
    expect(layout.criticalMs).toBe(40 + 1000 + 320 + 288 + 280 + 2999 + 290);
  });

  it('stretches what is still going to now on a live run, and reads events from before duration_ms', () => {
    const live = layoutWaterfall({
      events: [
        at(0, 1, 'turn-start', { attempt: 1 }),
        at(300, 1, 'model-call-end', { stop_reason: 'tool_use', usage, cost_usd: 0.01, tool_uses: ['deploy'] }),
        at(310, 1, 'tool-call-start', { tool: 'deploy', tool_use_id: 'toolu_d', attempt: 1 }),
      ],
      nowMs: START + 2000,
    });
    expect(live.totalMs).toBe(2000);
    expect(live.bars.map((entry) => [entry.kind, entry.startMs, entry.endMs, entry.open, entry.status])).toEqual([
      ['model', 0, 300, false, 'ok'],
      ['tool', 310, 2000, true, 'running'],
    ]);
  });

  it('has nothing to lay out without events', () => {
    expect(layoutWaterfall({ events: [] })).toEqual({ startedAt: null, totalMs: 0, bars: [], markers: [], criticalMs: 0 });
  });
});

describe('eventDurations', () => {
  it('says how long what each event ends took', () => {
    const durations = eventDurations(EVENTS);
    const of = (name: string, toolUseId?: string) =>
      durations.get(EVENTS.find((event) => event.event === name && (toolUseId === undefined || event.tool_use_id === toolUseId))!.id);
    expect(of('model-call-fail')).toBe(40);
    expect(of('tool-call-end', 'toolu_b')).toBe(286);
    expect(of('input-receive')).toBe(2999);
    expect(of('run-end')).toBe(5310);
    expect(of('turn-start')).toBeUndefined();
    // An answer written before duration_ms: timed from its turn-start.
    expect(eventDurations([at(0, 1, 'turn-start'), at(250, 1, 'model-call-end')]).get(`${START + 250}-${sequence}`)).toBe(250);
  });
});

describe('a call the fleet stops because its run was cancelled while it streamed', () => {
  const events: WaterfallEvent[] = [
    at(0, 0, 'run-create', { model: 'claude-sonnet-5-5', max_tokens: 4096 }),
    at(10, 0, 'turn-start', { phase: 'building', attempt: 1 }),
    at(4000, 0, 'run-end', { status: 'cancelled' }),
    // Reported after the end: the watch saw the cancel on its next read and stopped the stream.
    at(4800, 0, 'model-call-fail', { status: null, error_type: null, outcome: 'run_ended', message: 'stopped', attempt: 1, duration_ms: 4790 }),
  ];
  const layout = layoutWaterfall({ events });

  it('is one bar, failed with run_ended, and no retry backoff follows it', () => {
    const models = layout.bars.filter((bar) => bar.kind === 'model');
    expect(models).toHaveLength(1);
    expect(models[0]).toMatchObject({ status: 'failed', open: false });
    expect(models[0]!.failure).toContain('run_ended');
    expect(layout.bars.filter((bar) => bar.kind === 'wait')).toEqual([]);
  });
});
