// What the Bedrock and Vertex client tests send and check alike: one build turn with the write_file
// tool (text calls off, so the answer is a real tool_use), and the error a failing call rejects with.
import { expect } from 'vitest';
import type { ModelCallFailure } from '../../model/classify-model-error.js';
import { describeModelError, type ModelCallResult, type ModelRequest } from '../../model/model-client.js';

const WRITE_FILE = {
  name: 'write_file',
  description: 'Write a file of the site.',
  input_schema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
};

/** A build turn for `model` (the cloud's own id); `headers` add simulator faults. */
export function buildTurn({ model, headers = {} }: { model: string; headers?: Record<string, string> }): ModelRequest {
  return {
    model,
    maxTokens: 4096,
    system: 'You build websites.',
    messages: [{ role: 'user', content: 'Build a small site about lighthouses.' }],
    tools: [WRITE_FILE],
    toolChoice: { type: 'auto' },
    stopSequences: [],
    headers: { 'x-buildfleet-text-calls': 'off', ...headers },
  };
}

/** The described error `call` rejects with; fails the test if it resolves. */
export async function failureOf(call: Promise<unknown>): Promise<ModelCallFailure> {
  const error = await call.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).not.toBeNull();
  return describeModelError(error);
}

/** The build turn's answer as the simulator gives it: text, then tool_use blocks, with usage, and no
 * Anthropic rate-limit headers (neither cloud sends them). */
export function expectBuildTurnAnswer(result: ModelCallResult): void {
  expect(result.response.stop_reason).toBe('tool_use');
  const types = result.response.content.map((block) => block.type);
  expect(types[0]).toBe('text');
  expect(types.slice(1).every((type) => type === 'tool_use') && types.length > 1).toBe(true);
  expect(result.response.usage.input_tokens).toBeGreaterThan(0);
  expect(result.response.usage.output_tokens).toBeGreaterThan(0);
  expect([...(result.headers?.keys() ?? [])].filter((name) => name.startsWith('anthropic-ratelimit-'))).toEqual([]);
}
