// What an agent's definition declares for a TypeScript tool rules over its implementation
// (define-agent.ts, docs/agents.md#typescript-tools): its timeout bounds each call (the call's signal
// aborts, and a call that is not safe to repeat is answered tool_outcome_unknown, not run again), and
// an implementation that contradicts its definition — a write the definition calls a read, which the
// kill switch and safe mode would then let through — is refused when the tool worker loads it, and
// never runs.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileAgent, defineAgent, defineTool, findAgent, registerAgent, unregisterAgent } from '../../src/agents/index.js';
import { implementationOf } from '../../src/tools/agent-implementations.js';
import { fetchPolicyFor } from '../../src/tools/http/check-fetch-target.js';
import { calls } from '../fixtures/agents/timed-desk-tools.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

const IMPLEMENTATIONS = new URL('../fixtures/agents/timed-desk-tools.ts', import.meta.url).href;

function deskOf(name: string, tool: ReturnType<typeof defineTool>) {
  return compileAgent(
    defineAgent({
      name,
      description: 'A desk with one TypeScript tool.',
      input: z.strictObject({ prompt: z.string() }),
      firstMessage: ({ prompt }) => prompt,
      phases: { working: { tools: [tool.name] } },
      tools: [tool],
      finishGate: () => [],
      systemPrompt: 'You work the desk.',
      implementations: IMPLEMENTATIONS,
    }),
  );
}

function scriptCalling(tool: string) {
  return {
    turns: [
      { content: [{ type: 'tool_use' as const, name: tool, input: {} }] },
      { content: [{ type: 'tool_use' as const, name: 'finish_turn', input: { summary: 'Done.' } }] },
      { content: [{ type: 'text' as const, text: 'Done.' }] },
    ],
  };
}

/** The tool_result the model was sent for the run's first call. */
function firstToolResult(harness: InProcessFleet): { is_error?: boolean; content: unknown } {
  const requests = harness.simulator.requests.filter((request) => request.path === '/v1/messages' && request.status === 200);
  const messages = (requests[1]!.body as { messages: Array<{ role: string; content: unknown }> }).messages;
  const blocks = messages.flatMap((message) => (Array.isArray(message.content) ? (message.content as Array<{ type: string }>) : []));
  return blocks.find((block) => block.type === 'tool_result') as unknown as { is_error?: boolean; content: unknown };
}

let harness: InProcessFleet | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});
afterAll(() => {
  unregisterAgent('timed-desk');
  unregisterAgent('lying-desk');
  unregisterAgent('strict-desk');
});

describe('a TypeScript tool as its definition declares it', () => {
  it("is aborted at the definition's timeout, and a call not safe to repeat is answered as of unknown outcome, run once", async () => {
    registerAgent(
      deskOf('timed-desk', defineTool({ name: 'wait_for_stock', description: 'Waits for stock.', input: z.strictObject({}), effect: 'read', timeoutMs: 1000, idempotent: false })),
    );
    harness = await startInProcessFleet({ label: 'timeddesk', simulator: { script: scriptCalling('wait_for_stock') } });
    const before = calls.wait_for_stock;
    const created = await harness.submit({ agent: 'timed-desk', prompt: 'Is there flour?' });
    const run = await harness.waitForRun(created.id, 60_000);
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded');
    const result = firstToolResult(harness);
    expect(calls.wait_for_stock - before).toBe(1);
    expect(result.is_error).toBe(true);
    expect(JSON.stringify(result.content)).toContain('tool_outcome_unknown');
    expect(JSON.stringify(result.content)).toContain('timed out');
  }, 90_000);

  it('is refused when its implementation writes but the definition says it reads, and never runs', async () => {
    registerAgent(deskOf('lying-desk', defineTool({ name: 'stamp', description: 'Stamps the order.', input: z.strictObject({}), effect: 'read' })));
    harness = await startInProcessFleet({ label: 'lyingdesk', simulator: { script: scriptCalling('stamp') }, env: { BUILDFLEET_RETRY_BASE_MS: '20' } });
    const before = calls.stamp;
    const created = await harness.submit({ agent: 'lying-desk', prompt: 'Stamp it.' });
    const run = await harness.waitForRun(created.id, 90_000);
    expect(calls.stamp - before).toBe(0);
    // The model is told the call failed (an operator's fault is not the model's to read); the
    // operator's word is the load's error, which the tool worker logs with each attempt.
    const result = firstToolResult(harness);
    expect(result.is_error).toBe(true);
    expect(JSON.stringify(result.content)).toContain('job_attempts_exhausted');
    expect(run.status).toBe('succeeded');
    await expect(implementationOf(findAgent('lying-desk')!, 'stamp', { fetchPolicy: fetchPolicyFor({ publicBaseUrl: 'http://127.0.0.1:1', config: harness.config }) })).rejects.toThrow(
      'tool stamp: the definition declares effect "read" but the implementation writes',
    );
  }, 120_000);

  it("is held to the output contract its definition declares, over its implementation's own", async () => {
    // The implementation's contract takes {stamped: true}; the definition's wants a receipt it never gives.
    const output = { schema: z.strictObject({ receipt: z.string() }), mode: 'fail_closed' as const };
    registerAgent(deskOf('strict-desk', defineTool({ name: 'stamp', description: 'Stamps the order.', input: z.strictObject({}), effect: 'write', output })));
    harness = await startInProcessFleet({ label: 'strictdesk', simulator: { script: scriptCalling('stamp') } });
    const before = calls.stamp;
    const created = await harness.submit({ agent: 'strict-desk', prompt: 'Stamp it.' });
    const run = await harness.waitForRun(created.id, 60_000);
    expect(calls.stamp - before).toBe(1);
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('invalid_tool_output');
  }, 90_000);
});
