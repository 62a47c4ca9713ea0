import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isToolName } from '../domain/profile.js';
import { toolInputSchemas } from '../domain/tool-input-schemas.js';
import { runSimulatedConversation } from './simulated-conversation.js';
import { startSimulator, type RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient()));
afterAll(() => simulator.close());

const OFF = { 'x-buildfleet-text-calls': 'off' };

describe('the happy build through the real SDK', () => {
  it('plans, builds, verifies and publishes across tier switches, then ends with the URL', async () => {
    const result = await runSimulatedConversation({ client, headers: OFF, forcePlanFirst: true });
    expect(result.endedBy).toBe('final-answer');
    expect(result.finalText).toContain('http://127.0.0.1:1/sites/r/');
    expect(result.toolCalls.map((call) => `${call.phase}:${call.name}`)).toEqual([
      'planning:todo_write',
      'building:set_colors',
      'building:set_fonts',
      'building:write_file',
      'building:write_file',
      'building:write_file',
      'building:write_file',
      'building:deploy',
      'building:todo_complete',
      'verifying:fetch_url_live',
      'verifying:check_broken_images',
      'verifying:set_meta',
      'verifying:publish',
      'verifying:todo_complete',
      'verifying:finish_turn',
    ]);
    // The summary is asked for in the verifying phase, with its tools and tool_choice auto, and
    // the builder answers it in text (builder-policy.ts: … → finish_turn → final answer).
    expect([...new Set(result.phases)]).toEqual(['planning', 'building', 'verifying']);
    expect(result.responses.at(-1)?.stop_reason).toBe('end_turn');
    expect(result.responses.at(-1)?.content.map((block) => block.type)).toEqual(['text']);
    expect([...result.executor.files.keys()].sort()).toEqual(['about.html', 'index.html', 'logo.svg', 'styles.css']);
    expect(result.executor.files.get('index.html')).toMatch(/<link rel="stylesheet" href="styles.css">[\s\S]*<img src="logo.svg"/);
    expect(result.executor.files.get('styles.css')).toContain('#1f6feb');
  });

  it('makes parallel calls: set_colors + set_fonts in one response, the file writes in one response', async () => {
    const result = await runSimulatedConversation({ client, headers: OFF, forcePlanFirst: true });
    const toolNamesPerResponse = result.responses.map((response) => response.content.filter((block) => block.type === 'tool_use').map((block) => block.name));
    expect(toolNamesPerResponse).toContainEqual(['set_colors', 'set_fonts']);
    expect(toolNamesPerResponse).toContainEqual(['write_file', 'write_file', 'write_file', 'write_file']);
  });

  it('only calls offered tools, with inputs valid against the tool schemas', async () => {
    const result = await runSimulatedConversation({ client, headers: OFF });
    for (const call of result.toolCalls) {
      expect(isToolName(call.name)).toBe(true);
      if (!isToolName(call.name)) continue;
      expect(toolInputSchemas[call.name].safeParse(call.input).success, `${call.name} ${JSON.stringify(call.input)}`).toBe(true);
    }
  });

  it('plans with a short text before todo_write when not forced', async () => {
    const result = await runSimulatedConversation({ client, headers: OFF, maxRequests: 1 });
    const [first] = result.responses;
    expect(first?.content[0]).toEqual({ type: 'text', text: "I'll plan the site first." });
    expect(first?.content[1]).toMatchObject({
      type: 'tool_use',
      name: 'todo_write',
      input: {
        todos: [
          { id: 'build', title: 'Build and deploy the site', phase: 'build' },
          { id: 'verify', title: 'Verify the live page and publish', phase: 'verify' },
        ],
      },
    });
  });
});

describe('the response, exactly like the real API', () => {
  it('has the Message shape, unique tool_use ids, a request-id header and deterministic usage', async () => {
    const body = {
      model: 'claude-sim',
      max_tokens: 500,
      messages: [{ role: 'user' as const, content: 'Build a site for Luna Bakery.' }],
      tools: [{ name: 'todo_write', description: 'plan', input_schema: { type: 'object' as const, properties: {} } }],
    };
    const { data, response } = await client.messages.create(body, { headers: OFF }).withResponse();
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('request-id')).toMatch(/^req_[0-9A-Za-z]{24}$/);
    expect(data.id).toMatch(/^msg_[0-9A-Za-z]{24}$/);
    expect(data).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-sim', stop_reason: 'tool_use', stop_sequence: null });
    expect(data.usage).toEqual({
      input_tokens: expect.any(Number),
      output_tokens: expect.any(Number),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      service_tier: 'standard',
    });
    const toolUse = data.content.find((block) => block.type === 'tool_use');
    expect(toolUse?.id).toMatch(/^toolu_[0-9A-Za-z]{24}$/);
    const again = await client.messages.create(body, { headers: OFF });
    expect(again.usage).toEqual(data.usage);
    expect(again.content.find((block) => block.type === 'tool_use')?.id).not.toBe(toolUse?.id);
  });

  it('records every request with its headers, parsed body and status', async () => {
    const before = simulator.requests.length;
    await client.messages.create(
      { model: 'claude-sim', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] },
      { headers: { ...OFF, 'x-buildfleet-run-id': 'run_record' } },
    );
    const recorded = simulator.requests.slice(before);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ method: 'POST', path: '/v1/messages', status: 200, stopReason: 'end_turn', scenario: 'happy' });
    expect(recorded[0]?.headers['x-buildfleet-run-id']).toBe('run_record');
    expect((recorded[0]?.body as { max_tokens: number }).max_tokens).toBe(50);
    expect(recorded[0]?.timestampMs).toBeGreaterThan(Date.now() - 10_000);
  });

  it('answers 401 without an API key and 404 for unknown paths, in the real error shape', async () => {
    const unauthenticated = await fetch(`${simulator.url}/v1/messages`, { method: 'POST', body: '{}', headers: { 'anthropic-version': '2023-06-01' } });
    expect(unauthenticated.status).toBe(401);
    expect(await unauthenticated.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const missing = await fetch(`${simulator.url}/v1/nothing`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' }, request_id: expect.stringMatching(/^req_/) });
  });

  it('rejects an unknown scenario name, so typos do not silently run the happy path', async () => {
    const error = await client.messages
      .create({ model: 'claude-sim', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-buildfleet-scenario': 'hapy' } })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  });
});

describe('admin endpoints', () => {
  it('GET /healthz', async () => {
    const response = await fetch(`${simulator.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('queues, lists and clears faults over HTTP, and rejects an invalid fault list', async () => {
    const queued = await fetch(`${simulator.url}/_sim/faults`, { method: 'POST', body: JSON.stringify([{ kind: 'overloaded', count: 2, runId: 'run_admin' }]) });
    expect(await queued.json()).toMatchObject({ queued: 1, pending: [{ fault: { kind: 'overloaded' }, remaining: 2 }] });
    expect(await (await fetch(`${simulator.url}/_sim/faults`)).json()).toMatchObject({ pending: [{ fault: { kind: 'overloaded', runId: 'run_admin' } }] });
    expect(await (await fetch(`${simulator.url}/_sim/faults`, { method: 'DELETE' })).json()).toEqual({ cleared: 1 });
    const invalid = await fetch(`${simulator.url}/_sim/faults`, { method: 'POST', body: JSON.stringify([{ kind: 'meteor' }]) });
    expect(invalid.status).toBe(400);
  });

  it('summarises and clears the recorded requests', async () => {
    await client.messages.create({ model: 'claude-sim', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-buildfleet-run-id': 'run_sum' } });
    const { requests } = (await (await fetch(`${simulator.url}/_sim/requests`)).json()) as { requests: Array<Record<string, unknown>> };
    expect(requests.at(-1)).toMatchObject({ path: '/v1/messages', runId: 'run_sum', status: 200, messageCount: 1, model: 'claude-sim' });
    await fetch(`${simulator.url}/_sim/requests`, { method: 'DELETE' });
    expect(simulator.requests).toHaveLength(0);
  });
});

describe('lifecycle', () => {
  it('listens on the requested host, and close() ends open keep-alive connections', async () => {
    const own = await startSimulator({ host: '127.0.0.1' });
    expect(own.url).toBe(`http://127.0.0.1:${own.port}`);
    await fetch(`${own.url}/healthz`);
    await own.close();
    await expect(fetch(`${own.url}/healthz`)).rejects.toThrow();
  });
});

describe('prompt caching in time', () => {
  it('makes a request\'s cache writes readable only once its response begins: a parallel request with the same prefix misses', async () => {
    // docs build-with-claude/prompt-caching, "How prompt caching works": the API "caches the prefix
    // once the response begins". JSON answers here take ≥ 1.5 s, so the second request arrives
    // while the first is still being generated.
    const own = await startSimulator({ host: '127.0.0.1', ttftMs: 1500 });
    try {
      const body = {
        model: 'claude-sim',
        max_tokens: 200,
        system: [{ type: 'text', text: `You build websites. ${'Keep every page accessible and fast. '.repeat(400)}`, cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }],
      };
      const call = () =>
        fetch(`${own.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01', ...OFF }, body: JSON.stringify(body) }).then(
          async (response) => ((await response.json()) as { usage: { cache_read_input_tokens: number; cache_creation_input_tokens: number } }).usage,
        );
      const first = call();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const [a, b] = await Promise.all([first, call()]);
      expect(a.cache_creation_input_tokens).toBeGreaterThan(0);
      expect(b.cache_read_input_tokens).toBe(0);
      expect(b.cache_creation_input_tokens).toBe(a.cache_creation_input_tokens);
      // Once an answer has begun, the entry is there.
      expect((await call()).cache_read_input_tokens).toBe(a.cache_creation_input_tokens);
    } finally {
      await own.close();
    }
  });
});

