// Text between tool calls returned as progress-update thinking blocks, through the real SDK
// (progress-updates.ts), JSON and streamed alike.
import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSimulatedConversation } from './simulated-conversation.js';
import type { RunningSimulator } from './simulator-server.js';
import { rawMessages } from './testing/raw-messages.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let client: Anthropic;
let api: ReturnType<typeof rawMessages>;
beforeAll(async () => {
  ({ simulator, client } = await startSimulatorWithClient());
  api = rawMessages({ client });
});
afterAll(() => simulator.close());

const PLAN_NOTE = "I'll plan the site first.";
const UPDATES_BETA = { 'anthropic-beta': 'thinking-display-updates-2026-08-18' };
const body = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 4096,
  messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }],
  tools: [{ name: 'todo_write', description: 'plan', input_schema: { type: 'object', properties: {} } }],
  ...extra,
});
const shape = (message: Anthropic.Message) =>
  message.content.map((block) => (block.type === 'thinking' ? `thinking:${block.thinking}` : block.type === 'text' ? `text:${block.text}` : block.type));

describe('progress updates', () => {
  it('on Opus 5.5 the note before a tool call is its own thinking block, empty by default, with its text under updates and summarized', async () => {
    const omitted = await api.send(body('claude-opus-5-5'));
    expect(shape(omitted)).toEqual(['thinking:', 'thinking:', 'tool_use']);
    const updates = await api.send(body('claude-opus-5-5', { thinking: { type: 'adaptive', display: 'updates' } }), UPDATES_BETA);
    expect(shape(updates)).toEqual(['thinking:', `thinking:${PLAN_NOTE}`, 'tool_use']);
    const summarized = await api.send(body('claude-opus-5-5', { thinking: { type: 'adaptive', display: 'summarized' } }));
    expect(shape(summarized)[1]).toBe(`thinking:${PLAN_NOTE}`);
    expect(shape(summarized)[0]).not.toBe('thinking:');
    // The note is still output, shown or not.
    expect(omitted.usage.output_tokens).toBe(summarized.usage.output_tokens);
  });

  it('streams as it answers in JSON', async () => {
    const request = body('claude-opus-5-5', { thinking: { type: 'adaptive', display: 'updates' } });
    const { message, events } = await api.stream(request, UPDATES_BETA);
    expect(shape(message)).toEqual(shape(await api.send(request, UPDATES_BETA)));
    const progressDeltas = events.flatMap((event) => (event.type === 'content_block_delta' && event.index === 1 ? [event.delta.type] : []));
    expect(progressDeltas.at(-1)).toBe('signature_delta');
    expect(progressDeltas.filter((type) => type === 'thinking_delta').length).toBeGreaterThan(0);
  });

  it('a final answer stays text; models without progress updates keep notes as text', async () => {
    expect(shape(await api.send(body('claude-opus-5-5', { tool_choice: { type: 'none' } }))).slice(1).every((entry) => entry.startsWith('text:'))).toBe(true);
    expect(shape(await api.send(body('claude-opus-5'))).slice(1)).toEqual([`text:${PLAN_NOTE}`, 'tool_use']);
  });

  it('on Sonnet 5.5 only notes longer than two sentences become progress updates; with between_tools they carry text', async () => {
    const build = await runSimulatedConversation({ client, headers: { 'x-buildfleet-text-calls': 'off' } });
    expect(build.endedBy).toBe('final-answer');
    const bodies = simulator.requests.filter((entry) => entry.path === '/v1/messages').map((entry) => entry.body as Record<string, unknown>);
    const replies = [];
    for (const recorded of bodies.slice(-build.responses.length)) {
      replies.push(await api.send({ ...recorded, model: 'claude-sonnet-5-5', thinking: { type: 'between_tools' } }));
    }
    expect(shape(replies[0] as Anthropic.Message)).toEqual([`text:${PLAN_NOTE}`, 'tool_use']);
    const deploy = replies.find((reply) => reply.content.some((block) => block.type === 'tool_use' && block.name === 'deploy'));
    expect(deploy && shape(deploy)).toEqual([
      'thinking:The pages, the stylesheet and the logo are written. Nothing is live yet, so the next step is a deploy. Deploying the site now.',
      'tool_use',
    ]);
  });
});
