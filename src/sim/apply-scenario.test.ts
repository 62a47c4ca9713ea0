import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { END_STOP_SEQUENCE, MISSING_FILE_PATH, SCENARIO_TEXTS, UNKNOWN_STOP_REASON, USER_STOP_SEQUENCE } from './apply-scenario.js';
import { toolsForPhase } from '../domain/profile.js';
import { parseTextToolCall } from './parse-text-tool-call.js';
import { runSimulatedConversation, type SimulatedConversationOptions } from './simulated-conversation.js';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient()));
afterAll(() => simulator.close());

const FLEET_STOP_SEQUENCES = [END_STOP_SEQUENCE, USER_STOP_SEQUENCE];

function runScenario(scenario: string, options: Partial<SimulatedConversationOptions> = {}) {
  return runSimulatedConversation({
    client,
    forcePlanFirst: true,
    stopSequences: FLEET_STOP_SEQUENCES,
    ...options,
    headers: { 'x-buildfleet-scenario': scenario, 'x-buildfleet-text-calls': 'off', ...options.headers },
  });
}

const stopReasons = (result: Awaited<ReturnType<typeof runScenario>>) => result.responses.map((response) => response.stop_reason as string);
const toolNames = (response: Anthropic.Message | undefined) =>
  (response?.content ?? []).flatMap((block) => (block.type === 'tool_use' ? [block.name] : []));

describe('scenarios bend one turn, then the build goes on', () => {
  it('multi_block_text: the final answer is three text blocks', async () => {
    const result = await runScenario('multi_block_text');
    expect(result.endedBy).toBe('final-answer');
    const final = result.responses.at(-1);
    expect(final?.stop_reason).toBe('end_turn');
    expect(final?.content.map((block) => block.type)).toEqual(['text', 'text', 'text']);
    expect(result.finalText).toContain('http://127.0.0.1:1/sites/r/');
  });

  it('empty_end_turn: one end_turn with content [] on the final turn, then a normal answer', async () => {
    const result = await runScenario('empty_end_turn');
    const empty = result.responses.filter((response) => response.content.length === 0);
    expect(empty).toHaveLength(1);
    expect(empty[0]?.stop_reason).toBe('end_turn');
    expect(result.endedBy).toBe('final-answer');
  });

  it('premature_end_turn: "All done!" right after the writes, then deploys after the nudge', async () => {
    const result = await runScenario('premature_end_turn');
    const index = result.responses.findIndex((response) => response.content.some((block) => block.type === 'text' && block.text === SCENARIO_TEXTS.prematureEndTurn));
    expect(result.responses[index]?.stop_reason).toBe('end_turn');
    expect(toolNames(result.responses[index - 1])).toContain('write_file');
    expect(toolNames(result.responses[index + 1])).toEqual(['deploy']);
    expect(result.endedBy).toBe('final-answer');
  });

  it('parallel_tool_fail: a read_file of a missing file among valid parallel writes', async () => {
    const result = await runScenario('parallel_tool_fail');
    const turn = result.responses.find((response) => toolNames(response).includes('read_file'));
    expect(toolNames(turn)).toEqual(['write_file', 'read_file', 'write_file', 'write_file', 'write_file']);
    expect(turn?.content).toContainEqual(expect.objectContaining({ name: 'read_file', input: { path: MISSING_FILE_PATH } }));
    expect(result.endedBy).toBe('final-answer');
  });

  it('max_tokens_text: truncated text once, and a continuation finishes the word', async () => {
    const result = await runScenario('max_tokens_text');
    const index = stopReasons(result).indexOf('max_tokens');
    const truncated = result.responses[index]?.content;
    expect(truncated).toHaveLength(1);
    expect(truncated?.[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/shared styl$/) });
    expect(result.responses[index + 1]?.content[0]).toEqual({ type: 'text', text: SCENARIO_TEXTS.truncatedTextRest });
    expect(stopReasons(result).filter((reason) => reason === 'max_tokens')).toHaveLength(1);
    expect(result.endedBy).toBe('final-answer');
  });

  it('max_tokens_tool_use: a write_file tool_use with input {} and stop_reason max_tokens', async () => {
    const result = await runScenario('max_tokens_tool_use');
    const cut = result.responses.find((response) => response.stop_reason === 'max_tokens');
    expect(cut?.content.at(-1)).toMatchObject({ type: 'tool_use', name: 'write_file', input: {} });
    expect(stopReasons(result).filter((reason) => reason === 'max_tokens')).toHaveLength(1);
    expect(result.endedBy).toBe('final-answer');
  });

  it('max_tokens_after_tool_use: a complete deploy tool_use followed by truncated text', async () => {
    const result = await runScenario('max_tokens_after_tool_use');
    const cut = result.responses.find((response) => response.stop_reason === 'max_tokens');
    expect(cut?.content.map((block) => block.type)).toEqual(['tool_use', 'text']);
    expect(cut?.content[0]).toMatchObject({ name: 'deploy', input: {} });
    expect(result.endedBy).toBe('final-answer');
  });

  it('stop_sequence_end: the final answer stops at "\\n---END---", only when the request asks for it', async () => {
    const result = await runScenario('stop_sequence_end');
    expect(result.responses.at(-1)).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: END_STOP_SEQUENCE });
    const without = await runScenario('stop_sequence_end', { stopSequences: [] });
    expect(without.responses.at(-1)).toMatchObject({ stop_reason: 'end_turn', stop_sequence: null });
  });

  it('stop_sequence_user: role-play drift stops at "\\nUser:" once, only when the request asks for it', async () => {
    const result = await runScenario('stop_sequence_user');
    const drifted = result.responses.filter((response) => response.stop_sequence === USER_STOP_SEQUENCE);
    expect(drifted).toHaveLength(1);
    expect(drifted[0]?.stop_reason).toBe('stop_sequence');
    expect(result.endedBy).toBe('final-answer');
    const without = await runScenario('stop_sequence_user', { stopSequences: [END_STOP_SEQUENCE] });
    expect(stopReasons(without)).not.toContain('stop_sequence');
  });

  it('pause_turn: pauses once, then continues from its own assistant content', async () => {
    const result = await runScenario('pause_turn');
    const index = stopReasons(result).indexOf('pause_turn');
    expect(result.responses[index]?.content).toEqual([{ type: 'text', text: SCENARIO_TEXTS.pause }]);
    expect(toolNames(result.responses[index + 1])).toEqual(['write_file', 'write_file', 'write_file', 'write_file']);
    expect(result.responses[index + 1]?.content[0]?.type).toBe('tool_use');
    expect(stopReasons(result).filter((reason) => reason === 'pause_turn')).toHaveLength(1);
    expect(result.endedBy).toBe('final-answer');
  });

  it('refusal: the first turn refuses, with stop_details', async () => {
    const result = await runScenario('refusal');
    expect(result.responses).toHaveLength(1);
    const [refusal] = result.responses;
    expect(refusal?.stop_reason).toBe('refusal');
    expect(refusal?.content).toEqual([{ type: 'text', text: SCENARIO_TEXTS.refusal }]);
    expect(refusal?.stop_details).toMatchObject({ type: 'refusal', category: null });
  });

  it('context_window_exceeded: stops with model_context_window_exceeded when verification starts', async () => {
    const result = await runScenario('context_window_exceeded');
    expect(result.responses.at(-1)?.stop_reason).toBe('model_context_window_exceeded');
    expect(result.toolCalls.at(-1)?.name).toBe('todo_complete');
  });

  it('unknown_stop_reason: a stop_reason the SDK has never heard of', async () => {
    const result = await runScenario('unknown_stop_reason');
    expect(result.responses.at(-1)?.stop_reason).toBe(UNKNOWN_STOP_REASON);
    expect(result.responses).toHaveLength(2);
  });

  it('ask_user: asks about the color scheme once, then builds with the answer', async () => {
    const result = await runScenario('ask_user');
    const asks = result.toolCalls.filter((call) => call.name === 'ask_user');
    expect(asks).toEqual([{ name: 'ask_user', input: { question: 'Which color scheme do you prefer?' }, phase: 'building' }]);
    expect(result.endedBy).toBe('final-answer');
  });

  it('text_tool_calls: set_colors, deploy and publish are written as text once each', async () => {
    const result = await runScenario('text_tool_calls');
    const written = result.responses.flatMap((response) => {
      const text = response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
      const parsed = toolNames(response).length === 0 ? parseTextToolCall({ text }) : null;
      return parsed ? [parsed.name] : [];
    });
    expect(written).toEqual(['set_colors', 'deploy', 'publish']);
    expect(result.endedBy).toBe('final-answer');
  });

  it('tool_call_after_finish: calls read_session once instead of the summary, then summarises once refused', async () => {
    const result = await runScenario('tool_call_after_finish');
    const finish = result.toolCalls.findIndex((call) => call.name === 'finish_turn');
    expect(result.toolCalls.slice(finish).map((call) => `${call.phase}:${call.name}`)).toEqual(['verifying:finish_turn', 'verifying:read_session']);
    const late = result.responses.at(-2);
    expect(late?.stop_reason).toBe('tool_use');
    expect(late?.content[0]).toEqual({ type: 'text', text: SCENARIO_TEXTS.callAfterFinishPreface });
    expect(result.endedBy).toBe('final-answer');
    expect(result.finalText).toContain('built, verified and published');
  });

  it('tool_calls_after_finish_always: calls read_session on every turn after finish_turn, never under tool_choice none', async () => {
    const result = await runScenario('tool_calls_after_finish_always');
    const finish = result.toolCalls.findIndex((call) => call.name === 'finish_turn');
    // Refused twice by the conversation driver; the third call stops it.
    expect(result.toolCalls.slice(finish + 1).map((call) => call.name)).toEqual(['read_session', 'read_session']);
    expect(toolNames(result.responses.at(-1))).toEqual(['read_session']);
    expect(result.endedBy).toBe('stopped');
    // The same transcript under tool_choice none: a model cannot call a tool there, so it answers.
    const tools = toolsForPhase('verifying').map((name) => ({ name, description: name, input_schema: { type: 'object' as const, properties: {} } }));
    const none = await client.messages.create(
      { model: 'claude-sim', max_tokens: 1024, messages: result.messages, tools, tool_choice: { type: 'none' } },
      { headers: { 'x-buildfleet-scenario': 'tool_calls_after_finish_always' } },
    );
    expect(none.stop_reason).toBe('end_turn');
    expect(none.content.every((block) => block.type === 'text')).toBe(true);
  });

  it('happy: no bent turns at all', async () => {
    const result = await runScenario('happy');
    expect(new Set(stopReasons(result))).toEqual(new Set(['tool_use', 'end_turn']));
  });
});

describe('once per run', () => {
  const request = (runId?: string) =>
    client.messages.create(
      {
        model: 'claude-sim',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }],
        tools: [{ name: 'todo_write', description: 'plan', input_schema: { type: 'object', properties: {} } }],
      },
      { headers: { 'x-buildfleet-scenario': 'refusal', ...(runId ? { 'x-buildfleet-run-id': runId } : {}) } },
    );

  it('a run that retries the identical request sees a once-scenario only once', async () => {
    expect((await request('run_once')).stop_reason).toBe('refusal');
    expect((await request('run_once')).stop_reason).toBe('tool_use');
    expect((await request('run_other')).stop_reason).toBe('refusal');
  });

  it('without a run id the answer depends on the transcript alone', async () => {
    expect((await request()).stop_reason).toBe('refusal');
    expect((await request()).stop_reason).toBe('refusal');
  });
});
