import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient()));
afterAll(() => simulator.close());

const OFF = { 'x-buildfleet-text-calls': 'off' };
const tool = { name: 'deploy', description: 'deploy', input_schema: { type: 'object', properties: {} } };
const base = { model: 'claude-sim', max_tokens: 200, messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }] };

function send(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return client.messages.create(body as unknown as Anthropic.MessageCreateParamsNonStreaming, { headers: { ...OFF, ...headers } });
}

async function rejectionMessage(body: Record<string, unknown>): Promise<string> {
  const error = await send(body).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  const badRequest = error as InstanceType<typeof Anthropic.BadRequestError>;
  expect(badRequest.status).toBe(400);
  expect(badRequest.type).toBe('invalid_request_error');
  return (badRequest.error as { error: { message: string } }).error.message;
}

describe('unknown fields (400 "<path>: Extra inputs are not permitted", like the real API)', () => {
  it.each([
    ['a top-level field', { ...base, response_format: { type: 'json' } }, 'response_format: Extra inputs are not permitted'],
    ['a beta-only field without an anthropic-beta header', { ...base, context_management: { edits: [] } }, 'context_management: Extra inputs are not permitted'],
    [
      'a field in a tool_use block',
      {
        ...base,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'deploy', input: {}, text: 'x' }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] },
        ],
        tools: [tool],
      },
      'messages.1.content.0.tool_use.text: Extra inputs are not permitted',
    ],
    [
      'cache_control on a thinking block',
      {
        ...base,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's', cache_control: { type: 'ephemeral' } }] },
        ],
      },
      'messages.1.content.0.thinking.cache_control: Extra inputs are not permitted',
    ],
    ['a field in a custom tool', { ...base, tools: [{ ...tool, examples: [] }] }, 'tools.0.custom.examples: Extra inputs are not permitted'],
    ['a field in a system block', { ...base, system: [{ type: 'text', text: 'hi', scope: 'global' }] }, 'system.0.scope: Extra inputs are not permitted'],
    ['a field of cache_control', { ...base, system: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral', scope: 'global' } }] }, 'system.0.cache_control.ephemeral.scope: Extra inputs are not permitted'],
    ['a field in metadata', { ...base, metadata: { user_id: 'u', session: 's' } }, 'metadata.session: Extra inputs are not permitted'],
    ['a field in tool_choice', { ...base, tools: [tool], tool_choice: { type: 'auto', parallel: false } }, 'tool_choice.auto.parallel: Extra inputs are not permitted'],
    ['a field of a message', { ...base, messages: [{ role: 'user', content: 'a', name: 'bob' }] }, 'messages.0.name: Extra inputs are not permitted'],
  ])('refuses %s', async (_label, body, message) => {
    expect(await rejectionMessage(body)).toBe(message);
  });

  it('accepts every documented field, and beta-only fields with an anthropic-beta header', async () => {
    const documented = {
      ...base,
      system: [{ type: 'text', text: 'You build websites.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      metadata: { user_id: 'user-1' },
      stop_sequences: ['</done>'],
      temperature: 0.5,
      top_p: 0.9,
      top_k: 10,
      // A strict tool's object schemas are closed (strict-tool-use; parse-strict-tools.ts).
      tools: [{ ...tool, input_schema: { ...tool.input_schema, additionalProperties: false }, strict: true, cache_control: { type: 'ephemeral', ttl: '1h' } }],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      service_tier: 'auto',
      stream: false,
    };
    expect((await send(documented)).type).toBe('message');
    expect((await send({ ...base, context_management: { edits: [] } }, { 'anthropic-beta': 'context-management-2025-06-27' })).type).toBe('message');
  });
});
