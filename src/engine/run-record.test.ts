import { describe, expect, it } from 'vitest';
import { fromFields, StoredRunInvalid, toFields } from './run-record.js';
import type { RunRecord } from './run-types.js';

const record: RunRecord = {
  id: 'run_abcdef0123456789',
  tenant: 'acme',
  status: 'running',
  agent: 'site-builder',
  phase: 'building',
  turn: 3,
  prompt: 'Build a bakery site',
  model: 'claude-sonnet-4-6',
  provider: 'anthropic',
  queueShard: 0,
  maxTurns: 40,
  maxTokens: 8192,
  maxTokensCeiling: 16384,
  thinking: 'off',
  thinkingBudgetTokens: null,
  effort: null,
  thinkingDisplay: null,
  options: { scenario: 'happy' },
  createdAt: '2026-11-23T00:00:00.000Z',
  updatedAt: '2026-11-23T00:00:01.000Z',
  traceId: null,
  traceContext: {},
  todos: [{ id: 'home', title: 'Home', phase: 'build', done: false }],
  usage: { input_tokens: 10, cache_write_5m_input_tokens: 2000, cache_write_1h_input_tokens: 0, cache_read_input_tokens: 6000, output_tokens: 5 },
  costMicroUsd: 9_705,
  budget: { costMicroUsd: 500_000, tokens: 400_000, costSetBy: 'tenant_daily_spend_limit' },
  result: null,
  error: null,
  latestDeploy: null,
  liveDeploy: null,
  question: null,
  finishVerified: false,
  safeMode: null,
  pendingPhase: null,
  counters: { endTurnNudges: 0, pauseTurnsInRow: 0, maxTokensContinuations: 0, reemitRequests: 0, driftReprompts: 0, summaryReprompts: 0 },
  meta: null,
  rerunOf: null,
  input: null,
  webhook: null,
};

describe('the stored run record', () => {
  it('decodes what it encodes', () => {
    expect(fromFields(toFields(record))).toEqual(record);
  });

  it.each([
    ['status', 'halfway'],
    ['turn', '-1'],
    ['todos', '{not json'],
    ['usage', JSON.stringify({ input_tokens: 'many' })],
    ['usage', JSON.stringify({ input_tokens: 1, output_tokens: 1, cache_read_input_tokens: -3 })],
    ['costMicroUsd', '1.5'],
    ['budget', JSON.stringify({ costMicroUsd: -1, tokens: null, costSetBy: 'run' })],
    ['budget', JSON.stringify({ costMicroUsd: 1, tokens: null, costSetBy: 'whoever' })],
    ['phase', 'Not a phase!'],
    ['pendingPhase', 'two words'],
    ['agent', 'Site Builder'],
  ])('refuses a record whose %s is %s, naming the field', (field, value) => {
    const fields = { ...toFields(record), [field]: value };
    expect(() => fromFields(fields)).toThrow(StoredRunInvalid);
    expect(() => fromFields(fields)).toThrow(`"${field}"`);
  });

  it.each(['provider', 'queueShard', 'maxTokensCeiling', 'usage', 'costMicroUsd'])('refuses a record without %s (every run is created with it), naming the field', (field) => {
    const fields: Record<string, string> = toFields(record);
    delete fields[field];
    expect(() => fromFields(fields)).toThrow(expect.objectContaining({ field }));
  });

  it('refuses a record without a budget, and decodes a run without a USD budget', () => {
    const { budget: _budget, ...fields } = toFields(record);
    expect(() => fromFields(fields)).toThrow(StoredRunInvalid);
    const unbounded = { ...record, budget: { costMicroUsd: null, tokens: null, costSetBy: 'run' as const } };
    expect(fromFields(toFields(unbounded))).toEqual(unbounded);
  });

  it('reads back the provider it was stored with', () => {
    const declared = { ...record, provider: 'vllm-gpu_1' };
    expect(fromFields(toFields(declared)).provider).toBe('vllm-gpu_1');
  });

  it.each(['Vllm', 'vllm gpu', '-vllm', 'x'.repeat(65), '{"kind":"openai_compatible"}'])('refuses a record whose provider is %s, naming the field', (provider) => {
    const fields = { ...toFields(record), provider };
    expect(() => fromFields(fields)).toThrow(StoredRunInvalid);
    expect(() => fromFields(fields)).toThrow('"provider"');
  });

  it('refuses a record without its tenant', () => {
    const { tenant: _tenant, ...fields } = toFields(record);
    expect(() => fromFields(fields)).toThrow(/"tenant": missing/);
  });
});
