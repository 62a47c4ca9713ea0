import { describe, expect, it } from 'vitest';
import { EMPTY_USAGE } from '../domain/usage.js';
import { toRunView, type RunViewRecord } from './run-view.js';

const SECRET = 'sk-ant-api03-RunViewSecretValue1234567890';
const KEY = 'bf_RunViewKeyValue0123456789';

const record: RunViewRecord = {
  id: 'run_0123456789abcdef0123456789abcdef',
  status: 'waiting_for_input',
  agent: 'site-builder',
  phase: 'building',
  turn: 3,
  model: 'claude-sonnet-4-6',
  provider: 'anthropic',
  maxTokens: 8192,
  thinking: 'off',
  thinkingBudgetTokens: null,
  effort: null,
  thinkingDisplay: null,
  todos: [{ id: 'footer', title: `Put ${SECRET} in the footer`, phase: 'build', done: false }],
  latestDeploy: null,
  liveDeploy: null,
  usage: { ...EMPTY_USAGE },
  costMicroUsd: 0,
  budget: { costMicroUsd: null, tokens: 400_000, costSetBy: 'run' },
  result: `Deployed with ${KEY}.`,
  error: null,
  question: { toolUseId: 'toolu_1', question: `Is ${SECRET} the live key?`, turn: 3 },
  traceId: null,
  createdAt: '2026-03-01T00:00:00.000Z',
  updatedAt: '2026-03-01T00:00:01.000Z',
  rerunOf: null,
};

describe('toRunView', () => {
  it('redacts secrets the model repeated in the plan, the result and the question', () => {
    const view = toRunView({ run: record, files: [], sitesBaseUrl: 'https://sites.example' });
    const text = JSON.stringify(view);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(KEY);
    expect(view.todos[0]).toEqual({ id: 'footer', title: 'Put [redacted] in the footer', phase: 'build', done: false });
    expect(view.result).toBe('Deployed with [redacted].');
    expect(view.question).toEqual({ toolUseId: 'toolu_1', question: 'Is [redacted] the live key?', turn: 3 });
    // The stored record is not changed: redaction is on the way out.
    expect(record.result).toContain(KEY);
  });
});
