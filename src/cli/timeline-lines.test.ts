import { describe, expect, it } from 'vitest';
import { describeTimelineEvent } from './timeline-lines.js';
import { summarizeValue } from './summarize-value.js';
import { formatTable } from './format-table.js';
import { EXIT_CODES, exitCodeOfApiError } from './exit-codes.js';

const base = { id: '1-0', run_id: 'run_abcdefgh', at: '2026-03-01T12:34:56.000Z' };
const usage = { input_tokens: 0, cache_write_5m_input_tokens: 0, cache_write_1h_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };
// The event's own usage and cost: the turn's (GET /v1/runs/:id/turns) are what the line shows.
const callEnd = { ...base, step: 2, event: 'model-call-end' as const, request_id: null, stop_reason: 'end_turn', stop_sequence: null, usage, cost_usd: 0, tool_uses: [] };

describe('describeTimelineEvent (logs and tail)', () => {
  it('prints a turn with its text cut to the first lines unless full', () => {
    const turn = { step: 2, phase: 'building', stopReason: 'end_turn', usage: { input_tokens: 10, cache_write_5m_input_tokens: 0, cache_write_1h_input_tokens: 0, cache_read_input_tokens: 1990, output_tokens: 5 }, costUsd: 0.0012, modelDurationMs: 1500, attempt: 1, text: 'a\nb\nc\nd\ne\nf\ng\nh' };
    const lines = describeTimelineEvent({ event: callEnd, turn: turn as never });
    expect(lines[0]).toBe('12:34:56  turn 2 · building · stop end_turn · 2,000 in / 5 out · $0.0012 · 1,500 ms');
    expect(lines.slice(1)).toEqual([...'abcdef'].map((letter) => `            │ ${letter}`).concat('            │ … 2 more lines (--full shows them)'));
    expect(describeTimelineEvent({ event: callEnd, turn: turn as never, full: true })).toHaveLength(9);
  });

  it('prints a failed tool call with its error, and skips progress events', () => {
    const call = { tool: 'deploy', input: {}, status: 'error', errorCode: 'deploy_failed', verdict: 'not_validated', verdictReason: 'deploy_failed', durationMs: 12, attempt: 2, injectionFlags: [], result: { content: 'wrapped', isError: true, errorReason: 'disk full' } };
    expect(describeTimelineEvent({ event: { ...base, step: 3, event: 'tool-call-end', tool: 'deploy', tool_use_id: 'toolu_1', ok: false, tool_result_status: 'error', parse_mode: 'native', duration_ms: 12 }, toolCall: call as never })).toEqual([
      '12:34:56    → deploy {}',
      '              ✗ not_validated deploy_failed · 12 ms · attempt 2',
      '              ← "disk full"',
    ]);
    expect(describeTimelineEvent({ event: { ...base, step: 3, event: 'model-progress', output_tokens: 10, estimated: true, block: 'text', tool: null, blocks: 1, elapsed_ms: 2000, reason: 'interval' } })).toEqual([]);
    expect(describeTimelineEvent({ event: { ...base, step: 3, event: 'run-reopen', job_id: 'job_1', error_code: 'model_unavailable', reopen: 1 } })).toEqual(['12:34:56  ↻ resumed at turn 3 after model_unavailable (resume 1)']);
  });
});

describe('summarizeValue, formatTable, exit codes', () => {
  it('cuts long strings and deep structures', () => {
    expect(summarizeValue({ path: 'index.html', content: 'x'.repeat(500), meta: { a: { b: 1 } } })).toBe(`{path: "index.html", content: "${'x'.repeat(40)}"… (500 chars), meta: {a: {1 fields}}}`);
    expect(summarizeValue('y'.repeat(300), 20)).toHaveLength(20);
  });

  it('aligns columns and leaves the last ragged', () => {
    expect(formatTable({ headers: ['ID', 'PROMPT'], rows: [['run_1', 'a'], ['r', 'bb']] })).toEqual(['ID     PROMPT', 'run_1  a', 'r      bb']);
  });

  it('maps API refusals to exit codes by status, a spend limit to `limited`', () => {
    expect(exitCodeOfApiError({ status: 404, code: 'run_not_found' })).toBe(EXIT_CODES.notFound);
    expect(exitCodeOfApiError({ status: 409, code: 'run_not_resumable' })).toBe(EXIT_CODES.conflict);
    expect(exitCodeOfApiError({ status: 403, code: 'forbidden' })).toBe(EXIT_CODES.unauthorized);
    expect(exitCodeOfApiError({ status: 429, code: 'rate_limited' })).toBe(EXIT_CODES.limited);
    expect(exitCodeOfApiError({ status: 503, code: 'model_spend_limit_reached' })).toBe(EXIT_CODES.limited);
    expect(exitCodeOfApiError({ status: 503, code: 'history_unavailable' })).toBe(EXIT_CODES.unavailable);
    expect(exitCodeOfApiError({ status: 422, code: 'webhook_url_blocked' })).toBe(EXIT_CODES.usage);
  });
});
