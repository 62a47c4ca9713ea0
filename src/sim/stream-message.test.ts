import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient({ siteSize: 'realistic' })));
afterAll(() => simulator.close());

const OFF = { 'x-buildfleet-text-calls': 'off' };
const TOOLS: Anthropic.Tool[] = [
  { name: 'todo_write', description: 'plan', input_schema: { type: 'object', properties: {} } },
  { name: 'write_file', description: 'write', input_schema: { type: 'object', properties: {} } },
];
const PLAN_REQUEST: Anthropic.MessageCreateParamsNonStreaming = {
  model: 'claude-sim',
  max_tokens: 4096,
  messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }],
  tools: TOOLS,
  thinking: { type: 'enabled', budget_tokens: 2048 },
};
const WRITE_REQUEST: Anthropic.MessageCreateParamsNonStreaming = {
  model: 'claude-sim',
  max_tokens: 8192,
  messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }],
  tools: TOOLS,
  tool_choice: { type: 'tool', name: 'write_file' },
};

interface RawEvent {
  event: string;
  data: Record<string, unknown>;
}

/** The raw server-sent events of a streamed request, pings included (the SDK drops those). */
async function rawStream(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await fetch(`${simulator.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sim', 'anthropic-version': '2023-06-01', ...OFF, ...headers },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const text = await response.text();
  const events: RawEvent[] = text
    .split('\n\n')
    .filter((chunk) => chunk.trim() !== '')
    .map((chunk) => {
      const [eventLine = '', dataLine = ''] = chunk.split('\n');
      return { event: eventLine.replace(/^event: /, ''), data: JSON.parse(dataLine.replace(/^data: /, '')) as Record<string, unknown> };
    });
  return { response, events };
}

/** A message with its random ids replaced (and the SDK's own `parsed_output` dropped), for comparing two answers. */
function withoutIds(message: Anthropic.Message): unknown {
  const { parsed_output: _parsedOutput, ...rest } = message as Anthropic.Message & { parsed_output?: unknown };
  return JSON.parse(
    JSON.stringify({ ...rest, id: 'msg', content: rest.content.map((block) => (block.type === 'tool_use' ? { ...block, id: 'toolu' } : block)) }),
  );
}

describe('streaming in the real SSE grammar', () => {
  it('sends message_start, blocks with deltas, message_delta and message_stop, with pings, as text/event-stream with a request-id', async () => {
    const { response, events } = await rawStream(PLAN_REQUEST as unknown as Record<string, unknown>);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('request-id')).toMatch(/^req_/);

    const names = events.map((event) => event.event);
    expect(names[0]).toBe('message_start');
    expect(names.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(names[1]).toBe('content_block_start');
    expect(names[2]).toBe('ping');
    const start = events[0]?.data.message as Anthropic.Message;
    expect(start.content).toEqual([]);
    expect(start.stop_reason).toBeNull();
    expect(start.usage.input_tokens).toBeGreaterThan(0);
    expect(start.usage.output_tokens).toBeLessThanOrEqual(1);

    // thinking (thinking_delta… signature_delta), then text, then tool_use: each start → deltas → stop.
    const blockTypes = events.filter((event) => event.event === 'content_block_start').map((event) => (event.data.content_block as { type: string }).type);
    expect(blockTypes).toEqual(['thinking', 'text', 'tool_use']);
    const thinkingDeltas = events
      .filter((event) => event.event === 'content_block_delta' && event.data.index === 0)
      .map((event) => (event.data.delta as { type: string }).type);
    expect(thinkingDeltas.length).toBeGreaterThan(2);
    expect(new Set(thinkingDeltas.slice(0, -1))).toEqual(new Set(['thinking_delta']));
    expect(thinkingDeltas.at(-1)).toBe('signature_delta');
    for (const index of [0, 1, 2]) {
      const own = events.filter((event) => event.data.index === index).map((event) => event.event);
      expect(own[0]).toBe('content_block_start');
      expect(own.at(-1)).toBe('content_block_stop');
    }
    const delta = events.at(-2)?.data as { delta: { stop_reason: string }; usage: { output_tokens: number } };
    expect(delta.delta.stop_reason).toBe('tool_use');
    expect(delta.usage.output_tokens).toBeGreaterThan(1);
  });

  it('finalMessage() equals the non-streaming answer to the same request, ids aside', async () => {
    const created = await client.messages.create(PLAN_REQUEST, { headers: OFF });
    const streamed = await client.messages.stream(PLAN_REQUEST, { headers: OFF }).finalMessage();
    expect(streamed.content.map((block) => block.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect(withoutIds(streamed)).toEqual(withoutIds(created));
  });

  it('reassembles a long tool input from many input_json_delta chunks, with pings while it streams', async () => {
    const stream = client.messages.stream(WRITE_REQUEST, { headers: OFF });
    const partials: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') partials.push(event.delta.partial_json);
    });
    const message = await stream.finalMessage();
    const toolUse = message.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    expect(toolUse?.input).toMatchObject({ path: 'index.html' });
    expect(partials.length).toBeGreaterThan(100);
    expect(partials.join('')).toBe(JSON.stringify(toolUse?.input));
    expect(withoutIds(message)).toEqual(withoutIds(await client.messages.create(WRITE_REQUEST, { headers: OFF })));

    const { events } = await rawStream(WRITE_REQUEST as unknown as Record<string, unknown>);
    expect(events.filter((event) => event.event === 'ping').length).toBeGreaterThan(2);
  });

  it('a stream_error fault breaks the stream mid-way: finalMessage() rejects with the error type', async () => {
    simulator.faults.add({ kind: 'stream_error', afterTokens: 200 });
    const stream = client.messages.stream(WRITE_REQUEST, { headers: OFF });
    let deltas = 0;
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta') deltas += 1;
    });
    const error = await stream.finalMessage().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).type).toBe('overloaded_error');
    expect(deltas).toBeGreaterThan(0);

    const { events } = await rawStream(WRITE_REQUEST as unknown as Record<string, unknown>, { 'x-buildfleet-fault': 'stream_error' });
    expect(events.map((event) => event.event)).toEqual(['message_start', 'error']);
    expect(events[1]?.data).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });

  it('a stream_error fault on a non-streaming request answers the HTTP error of the same type', async () => {
    simulator.faults.add({ kind: 'stream_error', errorType: 'api_error' });
    const error = await client.messages.create(WRITE_REQUEST, { headers: OFF }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(500);
  });

  it('validation errors come before the stream, as plain HTTP errors', async () => {
    const error = await client.messages
      .stream({ ...WRITE_REQUEST, max_tokens: 0 }, { headers: OFF })
      .finalMessage()
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  });
});
