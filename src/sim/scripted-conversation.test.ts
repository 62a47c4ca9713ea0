// A scripted conversation served through the real SDK (conversation-script.ts, scripted-turn.ts):
// the script's turns in the Messages API's grammar, JSON and streamed, a value taken from an
// earlier tool result — and each answer the real API could not give to the request refused,
// naming the turn and why.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConversationScript, type ConversationScript } from './conversation-script.js';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

const MODEL = 'claude-sonnet-4-6';
const tool = (name: string, properties: Record<string, unknown> = {}, strict = false): Anthropic.Tool => ({
  name,
  description: `the ${name} tool`,
  input_schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  ...(strict ? { strict: true } : {}),
});
const TOOLS = [tool('deploy'), tool('publish', { deploy_id: { type: 'string' } })];

const script: ConversationScript = parseConversationScript(
  JSON.stringify({
    turns: [
      { expect_tools: ['deploy', 'publish'], content: [{ type: 'text', text: 'Deploying.' }, { type: 'tool_use', name: 'deploy', input: {} }] },
      { content: [{ type: 'tool_use', name: 'publish', input: { deploy_id: { $result: 'deploy', path: 'deploy_id' } } }] },
      { content: [{ type: 'text', text: 'Published.' }] },
    ],
  }),
  'test script',
);

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient({ script })));
afterAll(() => simulator.close());

type Message = Anthropic.MessageParam;
const user = (text: string): Message => ({ role: 'user', content: text });
const result = (toolUseId: string, content: string): Message => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content }] });

/** The refusal the request gets, as the SDK reports it. */
async function refusal(request: Omit<Anthropic.MessageCreateParamsNonStreaming, 'model' | 'max_tokens'>): Promise<string> {
  const error = await client.messages.create({ model: MODEL, max_tokens: 1024, ...request }).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  const body = (error as InstanceType<typeof Anthropic.BadRequestError>).error as { error: { type: string; message: string } };
  expect(body.error.type).toBe('invalid_request_error');
  return body.error.message;
}

describe('a scripted conversation', () => {
  it('answers turn by turn, taking an id from the earlier result, and streams the same grammar', async () => {
    const first = await client.messages.create({ model: MODEL, max_tokens: 1024, tools: TOOLS, messages: [user('ship it')] });
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content.map((block) => block.type)).toEqual(['text', 'tool_use']);
    const deployCall = first.content[1] as Anthropic.ToolUseBlock;
    expect(deployCall).toMatchObject({ name: 'deploy', input: {}, id: expect.stringMatching(/^toolu_/) });

    const transcript: Message[] = [user('ship it'), { role: 'assistant', content: first.content }, result(deployCall.id, '{"deploy_id": "dep_42", "url": "http://127.0.0.1/x"}')];
    const stream = client.messages.stream({ model: MODEL, max_tokens: 1024, tools: TOOLS, messages: transcript });
    const second = await stream.finalMessage();
    expect(second.stop_reason).toBe('tool_use');
    expect(second.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'publish', input: { deploy_id: 'dep_42' } })]);

    const publishCall = second.content[0] as Anthropic.ToolUseBlock;
    const third = await client.messages.create({ model: MODEL, max_tokens: 1024, tools: TOOLS, messages: [...transcript, { role: 'assistant', content: second.content }, result(publishCall.id, '{"live": true}')] });
    expect(third).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: 'Published.' }] });
    expect(simulator.requests.filter((request) => request.status === 200).map((request) => request.source)).toEqual(['script', 'script', 'script']);
  });

  it('refuses a turn the request rules out, naming the turn and the reason', async () => {
    expect(await refusal({ tools: [tool('deploy')], messages: [user('ship it')] })).toContain('turn 1 of 3: the request offers the tools deploy; the script expects deploy, publish');
    expect(await refusal({ tools: [...TOOLS, tool('extra')], messages: [user('ship it')] })).toMatch(/expects deploy, publish/);
    expect(await refusal({ tools: TOOLS, tool_choice: { type: 'none' }, messages: [user('ship it')] })).toContain('tool_choice is none, and it calls a tool');
    expect(await refusal({ tools: TOOLS, tool_choice: { type: 'any' }, messages: [user('ship it')] })).toContain('forces a tool call, so the turn starts with one');
    // Turn 2 takes deploy_id from a deploy result the transcript does not hold.
    const withoutResult: Message[] = [user('ship it'), { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }, user('go on')];
    expect(await refusal({ tools: TOOLS, messages: withoutResult })).toContain('turn 2 of 3: {"$result":"deploy","path":"deploy_id"}: the transcript holds no successful deploy result');
    // Turn 2's call is not offered once publish is gone.
    const deployed: Message[] = [
      user('ship it'),
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'deploy', input: {} }] },
      result('toolu_01', '{"deploy_id": "dep_1"}'),
    ];
    expect(await refusal({ tools: [tool('deploy')], messages: deployed })).toContain('it calls publish, which the request does not offer (offered: deploy)');
    // A strict tool's input must match its schema: a number is no string.
    expect(await refusal({ tools: [tool('deploy'), tool('publish', { deploy_id: { type: 'integer' } }, true)], messages: deployed })).toContain('the input of strict tool publish does not match its input_schema');
    // Past the script's end.
    const ended: Message[] = [...deployed, { role: 'assistant', content: [{ type: 'text', text: 'a' }] }, user('b'), { role: 'assistant', content: [{ type: 'text', text: 'c' }] }, user('d')];
    expect(await refusal({ tools: TOOLS, messages: ended })).toContain('the script has no turn 4 (the transcript holds 3 assistant messages)');
    // Each refusal is logged as the 400 it was.
    expect(simulator.requests.filter((request) => request.status === 400)).toHaveLength(8);
  });
});

describe('a scripted turn under tool_choice, stop sequences and refusals', () => {
  /** A simulator serving one turn; closed after the test. */
  async function oneTurn(turn: unknown): Promise<{ client: Anthropic; close: () => Promise<void> }> {
    const started = await startSimulatorWithClient({ script: parseConversationScript(JSON.stringify({ turns: [turn] }), 'one turn') });
    return { client: started.client, close: () => started.simulator.close() };
  }
  const refusalOf = (error: unknown) => ((error as InstanceType<typeof Anthropic.BadRequestError>).error as { error: { message: string } }).error.message;

  it('makes one call at most when parallel calls are disabled, and the forced tool only', async () => {
    const { client: two, close } = await oneTurn({
      content: [
        { type: 'tool_use', name: 'deploy', input: {} },
        { type: 'tool_use', name: 'publish', input: { deploy_id: 'dep_1' } },
      ],
    });
    try {
      const served = await two.messages.create({ model: MODEL, max_tokens: 1024, tools: TOOLS, messages: [user('go')] });
      expect(served.content.map((block) => block.type)).toEqual(['tool_use', 'tool_use']);
      const parallelOff = { type: 'auto' as const, disable_parallel_tool_use: true };
      await expect(two.messages.create({ model: MODEL, max_tokens: 1024, tools: TOOLS, tool_choice: parallelOff, messages: [user('go')] }).catch(refusalOf)).resolves.toContain(
        'disable_parallel_tool_use is set, and it makes 2 calls',
      );
      const forced = { type: 'tool' as const, name: 'deploy' };
      await expect(two.messages.create({ model: MODEL, max_tokens: 1024, tools: TOOLS, tool_choice: forced, messages: [user('go')] }).catch(refusalOf)).resolves.toContain(
        'tool_choice forces deploy, and it calls publish',
      );
    } finally {
      await close();
    }
  });

  it('stops at a stop sequence the request sent, and refuses text that runs past one', async () => {
    const { client: stopping, close } = await oneTurn({ content: [{ type: 'text', text: 'Here is the plan' }], stop_reason: 'stop_sequence', stop_sequence: '###' });
    try {
      const served = await stopping.messages.create({ model: MODEL, max_tokens: 1024, stop_sequences: ['###', 'END'], messages: [user('go')] });
      expect(served).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: '###', content: [{ type: 'text', text: 'Here is the plan' }] });
      await expect(stopping.messages.create({ model: MODEL, max_tokens: 1024, stop_sequences: ['END'], messages: [user('go')] }).catch(refusalOf)).resolves.toContain(
        `its stop_sequence "###" is not one of the request's (END)`,
      );
      await expect(stopping.messages.create({ model: MODEL, max_tokens: 1024, stop_sequences: ['###', 'plan'], messages: [user('go')] }).catch(refusalOf)).resolves.toContain(
        `its text contains the request's stop sequence "plan"`,
      );
    } finally {
      await close();
    }
  });

  it('ends a refusal with its stop_details, as the API does', async () => {
    const { client: refusing, close } = await oneTurn({ content: [{ type: 'text', text: 'I will not build that.' }], stop_reason: 'refusal' });
    try {
      const served = await refusing.messages.create({ model: MODEL, max_tokens: 1024, messages: [user('go')] });
      expect(served).toMatchObject({ stop_reason: 'refusal', stop_details: { type: 'refusal', category: null } });
    } finally {
      await close();
    }
  });
});

describe('a conversation script file', () => {
  const parse = (value: unknown) => () => parseConversationScript(JSON.stringify(value), 'scripts/x.json');

  it('is refused with the field at fault when a turn could not end the way it says', () => {
    expect(parse({ turns: [{ content: [{ type: 'tool_use', name: 'deploy', input: {} }], stop_reason: 'end_turn' }] })).toThrow('scripts/x.json: not a conversation script: turns[0].stop_reason: a turn that calls a tool ends tool_use, not end_turn');
    expect(parse({ turns: [{ content: [{ type: 'text', text: 'hi' }], stop_reason: 'tool_use' }] })).toThrow('turns[0].stop_reason: tool_use needs a tool_use block in content');
    expect(parse({ turns: [{ content: [{ type: 'text', text: 'hi' }], stop_reason: 'stop_sequence' }] })).toThrow('stop_sequence is given exactly when stop_reason is stop_sequence');
    expect(parse({ turns: [{ content: [{ type: 'image' }] }] })).toThrow(/turns\[0\]\.content\[0\]/);
    expect(parse({ turns: [] })).toThrow(/turns/);
    expect(() => parseConversationScript('{turns', 'scripts/y.json')).toThrow(/^scripts\/y\.json: not JSON/);
  });
});
