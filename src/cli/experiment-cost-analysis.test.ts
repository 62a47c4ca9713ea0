import { describe, expect, it } from 'vitest';
import { DOCUMENTED_MODEL_PRICES } from '../domain/model-prices.js';
import type { RecordedRequest } from '../sim/simulator-server.js';
import { billRunRequests, costBreakdown, totalsOf } from './experiment-cost-analysis.js';

const price = DOCUMENTED_MODEL_PRICES['claude-sonnet-4-6']!;

function answered({ runId, tools, usage, breakpoints = 4, status = 200 }: { runId: string; tools: string[]; usage: { input: number; write?: number; read?: number }; breakpoints?: number; status?: number }): RecordedRequest {
  return {
    timestampMs: 0,
    method: 'POST',
    path: '/v1/messages',
    headers: { 'x-buildfleet-run-id': runId },
    // A moved breakpoint is not a change of the prefix: cache_control is left out of the comparison.
    body: { tools: tools.map((name, index) => ({ name, ...(index === tools.length - 1 ? { cache_control: { type: 'ephemeral' } } : {}) })), system: 'builder', tool_choice: { type: 'auto' }, messages: [] },
    status,
    requestId: null,
    durationMs: 0,
    fault: null,
    scenario: null,
    stopReason: 'tool_use',
    source: 'policy',
    streamed: true,
    abandoned: false,
    conversationHash: null,
    usage: {
      input_tokens: usage.input,
      output_tokens: 10,
      cache_creation_input_tokens: usage.write ?? 0,
      cache_read_input_tokens: usage.read ?? 0,
      cache_creation: { ephemeral_5m_input_tokens: usage.write ?? 0, ephemeral_1h_input_tokens: 0 },
    } as RecordedRequest['usage'],
    cacheBreakpoints: breakpoints,
  };
}

describe('billRunRequests', () => {
  const requests = [
    answered({ runId: 'a', tools: ['todo_write'], usage: { input: 900 } }),
    answered({ runId: 'b', tools: ['todo_write'], usage: { input: 5 } }),
    answered({ runId: 'a', tools: ['todo_write', 'write_file'], usage: { input: 0, write: 2000 } }),
    answered({ runId: 'a', tools: ['todo_write', 'write_file'], usage: { input: 0, write: 300, read: 2000 } }),
    answered({ runId: 'a', tools: ['todo_write', 'write_file'], usage: { input: 0 }, status: 529 }),
    answered({ runId: 'a', tools: ['todo_write', 'write_file'], usage: { input: 0, write: 2400, read: 100 } }),
    answered({ runId: 'a', tools: ['todo_write', 'publish'], usage: { input: 0, write: 2500 } }),
  ];
  const billed = billRunRequests({ requests, runId: 'a', price, phases: ['planning', 'building', 'building', 'building', 'verifying'] });

  it('keeps the run’s answered calls in order and classes each by what the cache could do for it', () => {
    expect(billed.map((request) => [request.kind, request.phase])).toEqual([
      ['first', 'planning'],
      ['prefix-change', 'building'],
      ['same-prefix', 'building'],
      ['same-prefix', 'building'],
      ['prefix-change', 'verifying'],
    ]);
    // The first call neither read nor wrote although it carried breakpoints: under the minimum.
    expect(billed.map((request) => request.belowMinimum)).toEqual([true, false, false, false, false]);
    // The fourth read 100 of the 2,300 the third cached: a miss the design does not plan.
    expect(billed.map((request) => request.missed)).toEqual([false, false, false, true, false]);
  });

  it('prices input and total per answer, and the kept-prefix estimate of a phase change', () => {
    // 2,000 written at $3.75 / MTok.
    expect(billed[1]!.inputMicroUsd).toBe(7500);
    // 300 written at $3.75 and 2,000 read at $0.30, plus 10 output tokens at $15.
    expect(billed[2]!.inputMicroUsd).toBe(1125 + 600);
    expect(billed[2]!.totalMicroUsd).toBe(1125 + 600 + 150);
    // Had the verifying call kept the prefix, it would have read the 2,500 its predecessor cached
    // (2,400 + 100) and written nothing.
    expect(billed[4]!.keptPrefixInputMicroUsd).toBe(750);
    // The first phase change's predecessor cached nothing: no estimate below the bill.
    expect(billed[1]!.keptPrefixInputMicroUsd).toBe(billed[1]!.inputMicroUsd);
  });

  it('leaves the phase unknown when the events do not line up with the calls', () => {
    expect(billRunRequests({ requests, runId: 'a', price, phases: ['planning'] }).every((request) => request.phase === null)).toBe(true);
  });

  it('breaks the cost down by kind, phase changes by transition, summing to the whole', () => {
    const rows = costBreakdown(billed);
    expect(rows.map((row) => [row.label, row.totals.requests])).toEqual([
      ['first', 1],
      ['prefix change planning → building', 1],
      ['prefix change building → verifying', 1],
      ['same-prefix', 2],
    ]);
    expect(rows.reduce((sum, row) => sum + row.totals.inputMicroUsd, 0)).toBe(totalsOf(billed).inputMicroUsd);
  });
});
