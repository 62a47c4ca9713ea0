// The simulator refuses tool_use ids outside the API's pattern as the API does, and its adversarial
// scenarios send such ids (and pattern-valid ones 10,000 characters long) for the fleet to survive.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileToolUseId, LONG_TOOL_USE_ID_CHARACTERS, longToolUseId } from './apply-scenario.js';
import { END_STOP_SEQUENCE, USER_STOP_SEQUENCE } from './apply-scenario.js';
import { runSimulatedConversation } from './simulated-conversation.js';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient()));
afterAll(() => simulator.close());

const deployTool = { name: 'deploy', description: 'the deploy tool', input_schema: { type: 'object', properties: {} } };

function exchange(id: string, resultId = id) {
  return {
    model: 'claude-sim',
    max_tokens: 200,
    tools: [deployTool],
    messages: [
      { role: 'user', content: 'Build a site for Luna Bakery.' },
      { role: 'assistant', content: [{ type: 'tool_use', id, name: 'deploy', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: resultId, content: 'ok' }] },
    ],
  } as unknown as Anthropic.MessageCreateParamsNonStreaming;
}

async function refusal(body: Anthropic.MessageCreateParamsNonStreaming): Promise<string> {
  const error = await client.messages.create(body, { headers: { 'x-buildfleet-text-calls': 'off' } }).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  return (error as InstanceType<typeof Anthropic.BadRequestError>).message;
}

describe('tool_use ids in a request', () => {
  it("are refused outside '^[a-zA-Z0-9_-]+$', with the API's wording", async () => {
    for (const id of ['toolu_a:b', 'a/b', 'with space', '工具', '  ']) {
      expect(await refusal(exchange(id)), id).toContain("messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'");
    }
  });

  it('are accepted in the pattern at any length', async () => {
    const id = longToolUseId(0);
    const answer = await client.messages.create(exchange(id), { headers: { 'x-buildfleet-text-calls': 'off' } });
    expect(answer.type).toBe('message');
  });
});

describe('adversarial scenarios', () => {
  const run = (scenario: string) =>
    runSimulatedConversation({
      client,
      forcePlanFirst: true,
      stopSequences: [END_STOP_SEQUENCE, USER_STOP_SEQUENCE],
      headers: { 'x-buildfleet-scenario': scenario, 'x-buildfleet-text-calls': 'off' },
    }).catch((error: unknown) => error);

  it('hostile_tool_use_ids: the first build turn carries ids the API never sends, and sending them back is refused', async () => {
    const outcome = await run('hostile_tool_use_ids');
    expect(outcome).toBeInstanceOf(Anthropic.BadRequestError);
    expect((outcome as Error).message).toContain("tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'");
    // The build got as far as the turn with the ids; the request after it was refused.
    const statuses = simulator.requests.map((request) => request.status);
    expect(statuses.at(-1)).toBe(400);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(1);
    expect(hostileToolUseId(0)).toContain(':');
  });

  it('long_tool_use_ids: ids of 10,000 characters, and the build goes on', async () => {
    const outcome = await run('long_tool_use_ids');
    expect(outcome).not.toBeInstanceOf(Error);
    const result = outcome as Awaited<ReturnType<typeof runSimulatedConversation>>;
    const ids = result.responses.flatMap((response) => response.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : [])));
    expect(ids).toContain(longToolUseId(0));
    expect(longToolUseId(0)).toHaveLength(LONG_TOOL_USE_ID_CHARACTERS);
    expect(result.endedBy).toBe('final-answer');
  });
});
