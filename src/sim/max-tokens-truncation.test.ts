import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient({ siteSize: 'realistic' })));
afterAll(() => simulator.close());

const OFF = { 'x-buildfleet-text-calls': 'off' };
const WRITE: Anthropic.MessageCreateParamsNonStreaming = {
  model: 'claude-sim',
  max_tokens: 1000,
  messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }],
  tools: [{ name: 'write_file', description: 'write', input_schema: { type: 'object', properties: {} } }],
  tool_choice: { type: 'tool', name: 'write_file' },
};

describe('max_tokens cuts the answer where the budget runs out', () => {
  it('inside a tool_use: the stream stops mid-JSON, both answers carry what parses, output_tokens == max_tokens', async () => {
    const created = await client.messages.create(WRITE, { headers: OFF });
    expect(created.stop_reason).toBe('max_tokens');
    expect(created.usage.output_tokens).toBe(1000);
    const toolUse = created.content[0] as Anthropic.ToolUseBlock;
    // The content string was cut off, so only the complete path survives the partial parse.
    expect(toolUse.input).toEqual({ path: 'index.html' });

    const stream = client.messages.stream(WRITE, { headers: OFF });
    let json = '';
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') json += event.delta.partial_json;
    });
    const streamed = await stream.finalMessage();
    expect(json).toHaveLength(4000);
    expect(json.startsWith('{"path":"index.html","content":"<!doctype html>')).toBe(true);
    expect(() => JSON.parse(json)).toThrow();
    expect(streamed.stop_reason).toBe('max_tokens');
    expect(streamed.usage.output_tokens).toBe(1000);
    expect(streamed.content[0]).toMatchObject({ type: 'tool_use', name: 'write_file', input: { path: 'index.html' } });
  });

  it('inside text: the text is cut exactly at the budget', async () => {
    const answer = await client.messages.create(
      { model: 'claude-sim', max_tokens: 12, messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }] },
      { headers: OFF },
    );
    expect(answer.stop_reason).toBe('max_tokens');
    expect(answer.usage.output_tokens).toBe(12);
    expect(answer.content).toHaveLength(1);
    expect((answer.content[0] as Anthropic.TextBlock).text).toHaveLength(48);
  });

  it('an answer that fits is not cut', async () => {
    const answer = await client.messages.create({ ...WRITE, max_tokens: 8000 }, { headers: OFF });
    expect(answer.stop_reason).toBe('tool_use');
    expect(answer.usage.output_tokens).toBeLessThan(8000);
    expect((answer.content[0] as Anthropic.ToolUseBlock).input).toMatchObject({ path: 'index.html', content: expect.stringContaining('</html>') });
  });

  it('thinking counts against max_tokens: the thinking block stays whole, the call after it is cut', async () => {
    const answer = await client.messages.create(
      { ...WRITE, tool_choice: { type: 'auto' }, max_tokens: 1100, thinking: { type: 'enabled', budget_tokens: 1024 } },
      { headers: OFF },
    );
    expect(answer.stop_reason).toBe('max_tokens');
    expect(answer.usage.output_tokens).toBe(1100);
    expect(answer.content[0]?.type).toBe('thinking');
    expect(answer.content.at(-1)?.type).toBe('tool_use');
  });

  it('a scenario that ends on max_tokens reports the whole budget as spent', async () => {
    const answer = await client.messages.create(
      { ...WRITE, tool_choice: { type: 'auto' }, max_tokens: 3000, tools: [...(WRITE.tools ?? []), { name: 'todo_write', description: 'plan', input_schema: { type: 'object', properties: {} } }] },
      { headers: { ...OFF, 'x-buildfleet-scenario': 'max_tokens_text' } },
    );
    expect(answer.stop_reason).toBe('max_tokens');
    expect(answer.usage.output_tokens).toBe(3000);
  });
});
