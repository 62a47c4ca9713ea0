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
/** The same, with the tools' input streamed as generated. */
const EAGER_WRITE_REQUEST: Anthropic.MessageCreateParamsNonStreaming = {
  ...WRITE_REQUEST,
  tools: TOOLS.map((tool) => ({ ...tool, eager_input_streaming: true })),
};
const FINE_GRAINED_BETA = { 'anthropic-beta': 'fine-grained-tool-streaming-2025-05-14' };

/** The input_json_delta fragments of block `index`, in order. */
function inputFragments(events: RawEvent[], index: number): string[] {
  return events
    .filter((event) => event.event === 'content_block_delta' && event.data.index === index)
    .map((event) => (event.data.delta as { partial_json: string }).partial_json);
}

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

  it('with eager_input_streaming, reassembles a long tool input from many input_json_delta chunks, with pings while it streams', async () => {
    const stream = client.messages.stream(EAGER_WRITE_REQUEST, { headers: OFF });
    const partials: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') partials.push(event.delta.partial_json);
    });
    const message = await stream.finalMessage();
    const toolUse = message.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    expect(toolUse?.input).toMatchObject({ path: 'index.html' });
    expect(partials.length).toBeGreaterThan(100);
    expect(partials.join('')).toBe(JSON.stringify(toolUse?.input));
    expect(withoutIds(message)).toEqual(withoutIds(await client.messages.create(EAGER_WRITE_REQUEST, { headers: OFF })));

    const { events } = await rawStream(EAGER_WRITE_REQUEST as unknown as Record<string, unknown>);
    expect(events.filter((event) => event.event === 'ping').length).toBeGreaterThan(2);
  });

  it('without eager_input_streaming, buffers each parameter: `content` arrives in one delta after a silence of pings', async () => {
    const { events } = await rawStream(WRITE_REQUEST as unknown as Record<string, unknown>);
    const toolIndex = events.findIndex((event) => event.event === 'content_block_start' && (event.data.content_block as { type: string }).type === 'tool_use');
    const index = events[toolIndex]?.data.index as number;
    const fragments = inputFragments(events, index);
    // One delta per top-level parameter: {"path":"index.html", then "content":"…"}.
    expect(fragments).toHaveLength(2);
    expect(fragments[0]).toBe('{"path":"index.html",');
    expect(fragments[1]?.startsWith('"content":"')).toBe(true);
    expect(fragments[1]?.length).toBeGreaterThan(4000);
    // Between the two deltas the stream carries only pings, one per 500 tokens generated.
    const own = events.slice(toolIndex);
    const first = own.findIndex((event) => event.event === 'content_block_delta');
    const second = own.findIndex((event, position) => position > first && event.event === 'content_block_delta');
    const between = own.slice(first + 1, second).map((event) => event.event);
    expect(between.length).toBeGreaterThanOrEqual(Math.floor((fragments[1]?.length ?? 0) / 2000) - 1);
    expect(new Set(between)).toEqual(new Set(['ping']));

    // The SDK assembles the same input either way, and the same as the JSON answer.
    const buffered = await client.messages.stream(WRITE_REQUEST, { headers: OFF }).finalMessage();
    const eager = await client.messages.stream(EAGER_WRITE_REQUEST, { headers: OFF }).finalMessage();
    const created = await client.messages.create(WRITE_REQUEST, { headers: OFF });
    expect(withoutIds(buffered)).toEqual(withoutIds(created));
    // (The eager request's tool definitions are longer: its input_tokens differ, not its content.)
    expect((withoutIds(eager) as Anthropic.Message).content).toEqual((withoutIds(created) as Anthropic.Message).content);
  });

  it('the fine-grained tool streaming beta streams a tool eagerly unless its definition says eager_input_streaming: false', async () => {
    const beta = await rawStream(WRITE_REQUEST as unknown as Record<string, unknown>, FINE_GRAINED_BETA);
    const toolIndexOf = (events: RawEvent[]) =>
      events.find((event) => event.event === 'content_block_start' && (event.data.content_block as { type: string }).type === 'tool_use')?.data.index as number;
    expect(inputFragments(beta.events, toolIndexOf(beta.events)).length).toBeGreaterThan(100);

    const optedOut = { ...WRITE_REQUEST, tools: TOOLS.map((tool) => ({ ...tool, eager_input_streaming: false })) };
    const off = await rawStream(optedOut as unknown as Record<string, unknown>, FINE_GRAINED_BETA);
    expect(inputFragments(off.events, toolIndexOf(off.events))).toHaveLength(2);
  });

  it('a tool call cut by max_tokens, buffered, still ends with its incomplete last parameter, as the JSON answer reads it', async () => {
    const request = { ...WRITE_REQUEST, max_tokens: 600 };
    const streamed = await client.messages.stream(request, { headers: OFF }).finalMessage();
    const created = await client.messages.create(request, { headers: OFF });
    expect(streamed.stop_reason).toBe('max_tokens');
    expect(withoutIds(streamed)).toEqual(withoutIds(created));
  });

  it('refuses an eager_input_streaming that is not a boolean', async () => {
    const request = { ...WRITE_REQUEST, tools: [{ ...TOOLS[0], eager_input_streaming: 'yes' }, TOOLS[1]] } as unknown as Anthropic.MessageCreateParamsNonStreaming;
    const error = await client.messages.create(request, { headers: OFF }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as Error).message).toContain('tools.0.custom.eager_input_streaming: Input should be a valid boolean');
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
