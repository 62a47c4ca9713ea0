// Each case is what the ladders decideToolFailure replaced did (run-tool-job.ts's catch around the
// tool and its output validation, tool-worker.ts's catch of ClaimNotDurableError).
import { describe, expect, it } from 'vitest';
import { decideToolFailure, NOT_DURABLE_PATIENCE_MS, NOT_DURABLE_RETRY_MS, type ToolFailureDecision, type ToolFailureInput } from './decide-tool-failure.js';

const base: ToolFailureInput = {
  failure: { kind: 'infrastructure' },
  toolName: 'fetch_url',
  idempotent: true,
  attemptsMade: 0,
  maxAttempts: 3,
  jobAgeMs: 0,
  mayDelay: true,
  notDurablePatienceMs: NOT_DURABLE_PATIENCE_MS,
  notDurableRetryMs: NOT_DURABLE_RETRY_MS,
};

const cases: Array<{ name: string; input: Partial<ToolFailureInput>; decision: ToolFailureDecision }> = [
  // A ToolError is the tool's answer, on any attempt, timed out or not.
  { name: 'a tool error is its result', input: { failure: { kind: 'tool_error', code: 'fetch_failed', message: 'HTTP 500' } }, decision: { kind: 'result_error', code: 'fetch_failed', message: 'HTTP 500' } },
  { name: 'a tool error on the last attempt is still its result', input: { failure: { kind: 'tool_error', code: 'fetch_failed', message: 'HTTP 500' }, attemptsMade: 2 }, decision: { kind: 'result_error', code: 'fetch_failed', message: 'HTTP 500' } },
  // An output that broke its contract: the tool's mode.
  { name: 'an invalid output under fail_closed ends the run', input: { failure: { kind: 'output_invalid', mode: 'fail_closed' } }, decision: { kind: 'fail_run', code: 'invalid_tool_output' } },
  { name: 'an invalid output under degrade degrades the run', input: { failure: { kind: 'output_invalid', mode: 'degrade' }, attemptsMade: 2 }, decision: { kind: 'degrade' } },
  // A claim not on a replica: wait while the patience lasts and the worker holds the lock.
  { name: 'a claim not durable waits for a replica, spending no attempt', input: { failure: { kind: 'claim_not_durable' }, jobAgeMs: NOT_DURABLE_PATIENCE_MS - 1, attemptsMade: 2 }, decision: { kind: 'defer', delayMs: NOT_DURABLE_RETRY_MS } },
  { name: 'a claim not durable past the patience retries as an infrastructure failure', input: { failure: { kind: 'claim_not_durable' }, jobAgeMs: NOT_DURABLE_PATIENCE_MS }, decision: { kind: 'retry', announce: false } },
  { name: 'a claim not durable without the lock token retries', input: { failure: { kind: 'claim_not_durable' }, mayDelay: false }, decision: { kind: 'retry', announce: false } },
  { name: 'a claim not durable on the last attempt is never a result', input: { failure: { kind: 'claim_not_durable' }, jobAgeMs: NOT_DURABLE_PATIENCE_MS, attemptsMade: 2 }, decision: { kind: 'retry', announce: false } },
  // A crash of the tool: retried (announced) until the attempts run out, unless its outcome is unknown.
  { name: 'a crash with attempts left is retried, announced', input: { failure: { kind: 'tool_crash', message: 'ECONNRESET', timedOut: false }, attemptsMade: 1 }, decision: { kind: 'retry', announce: true } },
  {
    name: 'a crash on the last attempt is an infrastructure-error result',
    input: { failure: { kind: 'tool_crash', message: 'ECONNRESET', timedOut: false }, attemptsMade: 2 },
    decision: { kind: 'result_error', code: 'tool_infrastructure_error', message: 'fetch_url failed 3 times: "ECONNRESET"' },
  },
  {
    name: 'a single-attempt job fails into a result at once',
    input: { failure: { kind: 'tool_crash', message: 'boom', timedOut: false }, maxAttempts: 1 },
    decision: { kind: 'result_error', code: 'tool_infrastructure_error', message: 'fetch_url failed 1 times: "boom"' },
  },
  {
    name: 'a timed-out tool that is not idempotent has an unknown outcome, whatever the attempts',
    input: { failure: { kind: 'tool_crash', message: 'tool timed out', timedOut: true }, idempotent: false, toolName: 'deploy_site' },
    decision: { kind: 'result_error', code: 'tool_outcome_unknown', message: 'deploy_site timed out after it started; it is not safe to run again, so its outcome is unknown.' },
  },
  { name: 'a timed-out idempotent tool is retried', input: { failure: { kind: 'tool_crash', message: 'tool timed out', timedOut: true } }, decision: { kind: 'retry', announce: true } },
  { name: 'an aborted tool that is not idempotent but did not time out is retried', input: { failure: { kind: 'tool_crash', message: 'x', timedOut: false }, idempotent: false }, decision: { kind: 'retry', announce: true } },
  // Thrown around the tool (the validator, Redis): back to the queue, unannounced, on any attempt.
  { name: 'an infrastructure failure is retried unannounced', input: {}, decision: { kind: 'retry', announce: false } },
  { name: 'an infrastructure failure on the last attempt is still thrown', input: { attemptsMade: 2 }, decision: { kind: 'retry', announce: false } },
];

describe('decideToolFailure', () => {
  it.each(cases)('$name', ({ input, decision }) => {
    expect(decideToolFailure({ ...base, ...input })).toEqual(decision);
  });

  it('quotes an upstream message as untrusted data in the result (quoteUntrusted: JSON-quoted, cut)', () => {
    const decision = decideToolFailure({ ...base, failure: { kind: 'tool_crash', message: 'x'.repeat(5000), timedOut: false }, attemptsMade: 2 });
    expect(decision.kind).toBe('result_error');
    expect((decision as { message: string }).message.length).toBeLessThan(5000);
  });

  it('decides every kind of failure', () => {
    const kinds = new Set(cases.map((item) => (item.input.failure ?? base.failure).kind));
    expect([...kinds].sort()).toEqual(['claim_not_durable', 'infrastructure', 'output_invalid', 'tool_crash', 'tool_error']);
  });
});
