// The simulator's request log is the experiments' ground truth for what the provider saw and
// billed: a streamed call the client walked away from is `abandoned`, and the same conversation
// sent twice carries the same `conversationHash` whether or not it streamed.
import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let client: Anthropic;
// Slow enough that a stream is still being written when the client aborts it.
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient({ ttftMs: 0, tokensPerSecond: 200 })));
afterAll(() => simulator.close());

const REQUEST: Anthropic.MessageCreateParamsNonStreaming = {
  model: 'claude-sim',
  max_tokens: 2048,
  messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }],
  tools: [{ name: 'todo_write', description: 'plan', input_schema: { type: 'object', properties: {} } }],
  tool_choice: { type: 'tool', name: 'todo_write' },
};

describe('the request log', () => {
  it('hashes the conversation without the transport flag, records usage, and marks an aborted stream abandoned', async () => {
    simulator.requests.splice(0);
    const answer = await client.messages.create(REQUEST);
    const stream = client.messages.stream(REQUEST);
    await stream.finalMessage();
    const [plain, streamed] = simulator.requests;
    expect(plain?.streamed).toBe(false);
    expect(streamed?.streamed).toBe(true);
    expect(plain?.conversationHash).toMatch(/^[0-9a-f]{64}$/);
    expect(streamed?.conversationHash).toBe(plain?.conversationHash);
    expect(plain?.usage?.output_tokens).toBe(answer.usage.output_tokens);
    expect(plain?.abandoned).toBe(false);
    expect(streamed?.abandoned).toBe(false);

    const controller = new AbortController();
    const aborted = client.messages.stream(REQUEST, { signal: controller.signal });
    await new Promise<void>((resolve) => aborted.once('streamEvent', () => resolve()));
    controller.abort();
    await aborted.finalMessage().catch(() => undefined);
    const last = simulator.requests.at(-1)!;
    // The server notices the closed socket on its own schedule: generous on a loaded machine.
    await expect.poll(() => last.abandoned, { timeout: 30_000 }).toBe(true);
    expect(last.status).toBe(200);
  });
});
