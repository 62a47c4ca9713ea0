import { describe, expect, it } from 'vitest';
import { countersSchema } from '../engine/index.js';
import type { AssistantBlock, ModelResponse } from '../domain/model-message.js';
import { EMPTY_USAGE } from '../domain/usage.js';
import {
  DEFAULT_STOP_SEQUENCES,
  DEFAULT_TURN_LIMITS,
  EMPTY_ANSWER_TEXT,
  VERIFIED_WITHOUT_SUMMARY_TEXT,
  handleStopReason,
  PAUSE_TURN_CONTINUE_TEXT,
  mergeContinuation,
  sanitizeAssistant,
  type StopReasonInput,
  type TextRecovery,
} from './stop-reason-handler.js';

const response = (stop_reason: string | null, content: AssistantBlock[], stop_sequence: string | null = null): ModelResponse => ({
  id: 'msg_1',
  model: 'm',
  content,
  stop_reason,
  stop_sequence,
  usage: { ...EMPTY_USAGE, input_tokens: 1, output_tokens: 1 },
});

const noRecovery: TextRecovery = {
  calls: [],
  parse_mode: 'none',
  candidate_count: 0,
  fallback_used: false,
  schema_validation: 'not_run',
  reason: 'no_candidate',
  fence_only_stop: false,
  json_in_text: false,
};

function input(overrides: Partial<StopReasonInput> & { response: ModelResponse }): StopReasonInput {
  return {
    finishVerified: false,
    finishGateMissing: ['Deploy the site.'],
    finishSummary: null,
    counters: countersSchema.parse({}),
    currentMaxTokens: 1000,
    maxTokensCeiling: 4000,
    limits: DEFAULT_TURN_LIMITS,
    stopSequences: DEFAULT_STOP_SEQUENCES,
    progressUpdates: false,
    assistantPrefill: true,
    recover: () => noRecovery,
    recoveryEnabled: true,
    newSyntheticId: () => 'synthetic_1',
    ...overrides,
  };
}

const text = (value: string): AssistantBlock => ({ type: 'text', text: value });
const toolUse = (id: string, name = 'write_file', toolInput: unknown = { path: 'a.html', content: 'x' }): AssistantBlock => ({
  type: 'tool_use',
  id,
  name,
  input: toolInput,
});

describe('end_turn', () => {
  it('after the finish gate, succeeds with every text block joined', () => {
    const { decision } = handleStopReason(input({ finishVerified: true, response: response('end_turn', [text('One.'), text('Two.'), text('Three.')]) }));
    expect(decision).toMatchObject({ kind: 'succeed', result: 'One.\n\nTwo.\n\nThree.' });
  });

  it('turns an empty answer into a meaningful message and a valid assistant turn', () => {
    const { decision } = handleStopReason(input({ finishVerified: true, response: response('end_turn', []) }));
    expect(decision.kind).toBe('succeed');
    if (decision.kind !== 'succeed') return;
    expect(decision.result).toBe(EMPTY_ANSWER_TEXT);
    expect(decision.assistant.content).toEqual([{ type: 'text', text: '(no content)' }]);
  });

  it('before the gate, continues naming what is missing, then fails after the bound', () => {
    const first = handleStopReason(input({ response: response('end_turn', [text('All done!')]) }));
    expect(first.decision).toMatchObject({ kind: 'continue', input: { kind: 'text' } });
    expect(first.decision.kind === 'continue' && first.decision.input.kind === 'text' && first.decision.input.text).toContain('Deploy the site.');
    expect(first.counters.endTurnNudges).toBe(1);
    const last = handleStopReason(input({ counters: { ...first.counters, endTurnNudges: 3 }, response: response('end_turn', [text('Done')]) }));
    expect(last.decision).toMatchObject({ kind: 'end', status: 'failed', error: { code: 'unverified_finish' } });
  });

  it('recovers one valid text tool call as a synthetic tool_use and keeps the text in an event', () => {
    const recovered: TextRecovery = { ...noRecovery, calls: [{ name: 'deploy', arguments: {} }], parse_mode: 'tag', candidate_count: 1, reason: null };
    const { decision, events } = handleStopReason(input({ recover: () => recovered, response: response('end_turn', [text('<tool name="deploy">{}</tool>')]) }));
    expect(decision).toMatchObject({ kind: 'tools', calls: [{ toolUseId: 'synthetic_1', name: 'deploy', parseMode: 'tag' }] });
    expect(events).toContainEqual(expect.objectContaining({ event: 'tool-call-recover', original_text: '<tool name="deploy">{}</tool>' }));
  });

  it('asks for a re-emit on JSON in text with no valid candidate, bounded', () => {
    const lookalike: TextRecovery = { ...noRecovery, json_in_text: true, reason: 'not_in_tier:publish' };
    const first = handleStopReason(input({ recover: () => lookalike, response: response('end_turn', [text('{"tool":"publish"}')]) }));
    expect(first.decision).toMatchObject({ kind: 'continue' });
    expect(first.counters.reemitRequests).toBe(1);
    const exhausted = handleStopReason(input({ recover: () => lookalike, counters: { ...first.counters, reemitRequests: 3 }, response: response('end_turn', [text('{"tool":"publish"}')]) }));
    expect(exhausted.decision.kind).toBe('continue');
    expect(exhausted.counters.endTurnNudges).toBe(1);
  });

  it('with recovery off, only detects: the call is counted, not run', () => {
    const recovered: TextRecovery = { ...noRecovery, calls: [{ name: 'deploy', arguments: {} }], parse_mode: 'tag', candidate_count: 1, reason: null };
    const { decision, events } = handleStopReason(input({ recoveryEnabled: false, recover: () => recovered, response: response('end_turn', [text('<tool name="deploy">{}</tool>')]) }));
    expect(decision.kind).toBe('continue');
    expect(events).toContainEqual(expect.objectContaining({ event: 'text-call-detect', parse_mode: 'tag', recovery: false }));
    expect(events.map((event) => event.event)).not.toContain('tool-call-recover');
  });
});

describe('tool_use', () => {
  it('runs every tool_use block with its id verbatim', () => {
    const { decision } = handleStopReason(input({ response: response('tool_use', [text('Writing.'), toolUse('toolu_A'), toolUse('toolu_B')]) }));
    expect(decision).toMatchObject({ kind: 'tools', calls: [{ toolUseId: 'toolu_A' }, { toolUseId: 'toolu_B' }] });
  });

  it('fails clearly when tool_use comes with no block', () => {
    expect(handleStopReason(input({ response: response('tool_use', [text('hm')]) })).decision).toMatchObject({ kind: 'end', error: { code: 'tool_use_without_calls' } });
  });
});

describe('tool calls after the finish gate passed (the summary turn keeps tools and tool_choice auto)', () => {
  const verified = { finishVerified: true, finishGateMissing: [], finishSummary: 'Luna Bakery is live.' };

  it('are handed on to be refused, counted, with no build note: the next message asks for the summary', () => {
    const { decision, counters } = handleStopReason(input({ ...verified, response: response('tool_use', [toolUse('toolu_late', 'read_session', {})]) }));
    expect(decision).toMatchObject({ kind: 'tools', calls: [{ toolUseId: 'toolu_late', name: 'read_session' }], note: null });
    expect(counters.summaryReprompts).toBe(1);
  });

  it('complete calls before a max_tokens cut count the same way', () => {
    const { decision, counters } = handleStopReason(
      input({ ...verified, response: response('max_tokens', [toolUse('toolu_ok', 'read_session', {}), toolUse('toolu_cut', 'publish', {})]) }),
    );
    expect(decision).toMatchObject({ kind: 'tools', calls: [{ toolUseId: 'toolu_ok' }], note: null });
    expect(counters.summaryReprompts).toBe(1);
  });

  it('past the bound the run succeeds with the summary finish_turn carried (or a fixed text), never loops', () => {
    const exhausted = { ...countersSchema.parse({}), summaryReprompts: DEFAULT_TURN_LIMITS.maxSummaryReprompts };
    const late = () => response('tool_use', [text('Let me check once more.'), toolUse('toolu_again', 'fetch_url_live', { url: 'https://x.test/' })]);
    const { decision, events } = handleStopReason(input({ ...verified, counters: exhausted, response: late() }));
    expect(decision).toMatchObject({ kind: 'succeed', result: 'Luna Bakery is live.' });
    expect(events).toContainEqual({ event: 'summary-fallback-use', reprompts: DEFAULT_TURN_LIMITS.maxSummaryReprompts, tools: ['fetch_url_live'] });
    const withoutSummary = handleStopReason(input({ ...verified, finishSummary: null, counters: exhausted, response: late() }));
    expect(withoutSummary.decision).toMatchObject({ kind: 'succeed', result: VERIFIED_WITHOUT_SUMMARY_TEXT });
  });

  it('before the gate the same calls simply run, uncounted', () => {
    const { decision, counters } = handleStopReason(input({ response: response('tool_use', [toolUse('toolu_early', 'read_session', {})]) }));
    expect(decision.kind).toBe('tools');
    expect(counters.summaryReprompts).toBe(0);
  });

  it('a call written as text in the summary is not recovered: the text is the answer', () => {
    const recovered: TextRecovery = { ...noRecovery, calls: [{ name: 'deploy', arguments: {} }], parse_mode: 'tag', candidate_count: 1, reason: null };
    const { decision, events } = handleStopReason(input({ ...verified, recover: () => recovered, response: response('end_turn', [text('Done. <tool name="deploy">{}</tool>')]) }));
    expect(decision).toMatchObject({ kind: 'succeed', result: 'Done. <tool name="deploy">{}</tool>' });
    expect(events.map((event) => event.event)).not.toContain('tool-call-recover');
  });
});

describe('max_tokens', () => {
  it('cut inside text: continues with a raised max_tokens, never as a final answer', () => {
    const { decision, maxTokens, events } = handleStopReason(input({ finishVerified: true, response: response('max_tokens', [text('The site is rea')]) }));
    expect(decision).toMatchObject({ kind: 'continue', input: { kind: 'text' } });
    expect(maxTokens).toBe(2000);
    expect(events).toContainEqual({ event: 'max-tokens-raise', from: 1000, to: 2000 });
  });

  it('cut inside a tool_use: never runs it and asks for it again', () => {
    const { decision, events } = handleStopReason(input({ response: response('max_tokens', [text('Now'), toolUse('toolu_cut', 'write_file', {})]) }));
    expect(decision.kind).toBe('continue');
    if (decision.kind !== 'continue') return;
    expect(JSON.stringify(decision.assistant)).not.toContain('toolu_cut');
    expect(decision.input.kind === 'text' && decision.input.text).toContain('NOT executed');
    expect(events).toContainEqual(expect.objectContaining({ event: 'tool-call-truncate', tool_use_id: 'toolu_cut' }));
  });

  it('complete tool_use before a cut: runs those and drops the cut one', () => {
    const { decision } = handleStopReason(input({ response: response('max_tokens', [toolUse('toolu_ok', 'deploy', {}), toolUse('toolu_cut', 'write_file', {})]) }));
    expect(decision).toMatchObject({ kind: 'tools', calls: [{ toolUseId: 'toolu_ok' }] });
  });

  it('stops after the bound', () => {
    const { decision } = handleStopReason(
      input({ counters: { ...countersSchema.parse({}), maxTokensContinuations: 3 }, response: response('max_tokens', [text('cut')]) }),
    );
    expect(decision).toMatchObject({ kind: 'end', error: { code: 'max_tokens_exhausted' } });
  });
});

describe('the other stop reasons', () => {
  it('stop_sequence ---END--- is a clean finish', () => {
    const { decision } = handleStopReason(input({ finishVerified: true, response: response('stop_sequence', [text('Site live.')], '\n---END---') }));
    expect(decision).toMatchObject({ kind: 'succeed', result: 'Site live.' });
  });

  it('stop_sequence User: discards the output and re-prompts, bounded', () => {
    const { decision } = handleStopReason(input({ response: response('stop_sequence', [text('Sure! Anything else?')], '\nUser:') }));
    expect(decision.kind).toBe('continue');
    expect(JSON.stringify(decision)).not.toContain('Anything else');
    const bounded = handleStopReason(input({ counters: { ...countersSchema.parse({}), driftReprompts: 2 }, response: response('stop_sequence', [text('x')], '\nUser:') }));
    expect(bounded.decision).toMatchObject({ kind: 'end', error: { code: 'role_play_drift' } });
  });

  it('pause_turn sends the content back, at most 3 in a row', () => {
    expect(handleStopReason(input({ response: response('pause_turn', [text('Searching…')]) })).decision).toMatchObject({ kind: 'continue', input: { kind: 'none' } });
    // A model that refuses an assistant prefill goes on after a user message.
    expect(handleStopReason(input({ assistantPrefill: false, response: response('pause_turn', [text('Searching…')]) })).decision).toMatchObject({
      kind: 'continue',
      input: { kind: 'text', text: PAUSE_TURN_CONTINUE_TEXT },
    });
    const fourth = handleStopReason(input({ counters: { ...countersSchema.parse({}), pauseTurnsInRow: 3 }, response: response('pause_turn', [text('…')]) }));
    expect(fourth.decision).toMatchObject({ kind: 'end', error: { code: 'pause_turn_limit' } });
  });

  it('refusal ends refused with the reason and runs no tool', () => {
    const { decision } = handleStopReason(input({ response: response('refusal', [text('I cannot help with that.'), toolUse('toolu_x')]) }));
    expect(decision).toMatchObject({ kind: 'end', status: 'refused', error: { message: 'I cannot help with that.' } });
  });

  it('context window exceeded is never a success', () => {
    expect(handleStopReason(input({ finishVerified: true, response: response('model_context_window_exceeded', [text('partial')]) })).decision).toMatchObject({
      kind: 'end',
      error: { code: 'context_window_exceeded' },
    });
  });

  it('an unknown stop reason ends the run unexpected_stop with a warning event', () => {
    const { decision, events } = handleStopReason(input({ response: response('brand_new_reason', [text('?')]) }));
    expect(decision).toMatchObject({ kind: 'end', status: 'failed', error: { code: 'unexpected_stop' } });
    expect(events).toContainEqual(expect.objectContaining({ event: 'stop-reason-reject', raw_stop_reason: 'brand_new_reason' }));
    expect(handleStopReason(input({ response: response(null, []) })).decision).toMatchObject({ error: { code: 'unexpected_stop' } });
  });
});

describe('max_tokens: a raised limit stays, truncations counted in a row', () => {
  const clean = () => response('tool_use', [toolUse('toolu_ok', 'deploy', {})]);
  const cut = () => response('max_tokens', [text('cut')]);

  it('raises on every max_tokens path (text or complete tool calls), capped at the ceiling', () => {
    expect(handleStopReason(input({ response: cut() })).maxTokens).toBe(2000);
    expect(handleStopReason(input({ response: response('max_tokens', [toolUse('toolu_ok', 'deploy', {}), toolUse('toolu_cut')]) })).maxTokens).toBe(2000);
    expect(handleStopReason(input({ currentMaxTokens: 3000, response: cut() })).maxTokens).toBe(4000);
    const atCeiling = handleStopReason(input({ currentMaxTokens: 4000, response: cut() }));
    expect(atCeiling.maxTokens).toBe(4000);
    expect(atCeiling.events.map((event) => event.event)).not.toContain('max-tokens-raise');
  });

  it('keeps the raised limit after clean answers and never lowers it', () => {
    for (const answer of [clean(), response('end_turn', [text('Done.')]), response('pause_turn', [text('…')])]) {
      expect(handleStopReason(input({ currentMaxTokens: 2000, response: answer })).maxTokens).toBe(2000);
    }
  });

  it('does not raise for a full context window: a larger limit cannot help there', () => {
    const { maxTokens } = handleStopReason(input({ response: response('model_context_window_exceeded', [toolUse('toolu_ok', 'deploy', {}), text('x')]) }));
    expect(maxTokens).toBe(1000);
  });

  it('resets the counter after a clean answer, so truncations separated by clean turns never end the run', () => {
    let counters = countersSchema.parse({});
    let maxTokens = 1000;
    for (let round = 0; round < 6; round += 1) {
      const truncated = handleStopReason(input({ counters, currentMaxTokens: maxTokens, response: cut() }));
      expect(truncated.decision.kind).toBe('continue');
      expect(truncated.counters.maxTokensContinuations).toBe(1);
      const after = handleStopReason(input({ counters: truncated.counters, currentMaxTokens: truncated.maxTokens, response: clean() }));
      expect(after.counters.maxTokensContinuations).toBe(0);
      counters = after.counters;
      maxTokens = after.maxTokens;
    }
    expect(maxTokens).toBe(4000);
  });

  it('ends after the bound of truncations in a row, and says how many in a row', () => {
    let counters = countersSchema.parse({});
    let decisionKind = '';
    let message = '';
    for (let round = 0; round < 4; round += 1) {
      const { decision, counters: next } = handleStopReason(input({ counters, response: cut() }));
      counters = next;
      decisionKind = decision.kind;
      if (decision.kind === 'end') message = decision.error.message;
    }
    expect(decisionKind).toBe('end');
    expect(message).toBe("The model's output was cut off 4 times in a row.");
  });
});

describe('thinking blocks survive every rewrite, verbatim and first', () => {
  const thinking: AssistantBlock = { type: 'thinking', thinking: 'Plan: deploy next.', signature: 'c2lnbmF0dXJl' };
  const redacted: AssistantBlock = { type: 'redacted_thinking', data: 'ZW5jcnlwdGVk' };
  const opening = [thinking, redacted];

  it('text tool-call recovery: a thinking message is never rewritten; it goes back as it came and the call is asked for again', () => {
    const recovered: TextRecovery = { ...noRecovery, calls: [{ name: 'deploy', arguments: {} }], parse_mode: 'tag', candidate_count: 1, reason: null };
    const content = [...opening, text('<tool name="deploy">{}</tool>')];
    const { decision, events, counters } = handleStopReason(input({ recover: () => recovered, response: response('end_turn', content) }));
    expect(decision.kind).toBe('continue');
    expect(decision.assistant?.content).toEqual(content);
    expect(decision.kind === 'continue' && decision.input).toMatchObject({ kind: 'text', text: expect.stringContaining('a call to deploy') });
    expect(events.map((event) => event.event)).toContain('tool-call-reemit');
    expect(events.map((event) => event.event)).not.toContain('tool-call-recover');
    expect(counters.reemitRequests).toBe(1);
  });

  it('pause_turn: the paused content goes back as it came, and the continuation joins the same message', () => {
    const { decision } = handleStopReason(input({ response: response('pause_turn', [...opening, text('Searching…')]) }));
    expect(decision.assistant?.content).toEqual([thinking, redacted, text('Searching…')]);
    const merged = mergeContinuation(decision.assistant!, sanitizeAssistant([toolUse('toolu_next', 'deploy', {})]));
    expect(merged.content).toEqual([thinking, redacted, text('Searching…'), toolUse('toolu_next', 'deploy', {})]);
  });

  it('pause_turn with nothing but thinking: the placeholder does not stay inside the merged message', () => {
    const { decision } = handleStopReason(input({ response: response('pause_turn', [thinking]) }));
    expect(decision.assistant?.content).toEqual([thinking, text('(no content)')]);
    const merged = mergeContinuation(decision.assistant!, sanitizeAssistant([text('Found it.')]));
    expect(merged.content).toEqual([thinking, text('Found it.')]);
  });

  it('max_tokens inside a tool_use: the cut call is dropped, the thinking kept', () => {
    const { decision } = handleStopReason(input({ response: response('max_tokens', [...opening, text('Now'), toolUse('toolu_cut', 'write_file', {})]) }));
    expect(decision.kind).toBe('continue');
    expect(decision.assistant?.content).toEqual([thinking, redacted, text('Now')]);
  });

  it('max_tokens after complete calls: the message the tool loop continues starts with the thinking', () => {
    const { decision } = handleStopReason(input({ response: response('max_tokens', [...opening, toolUse('toolu_ok', 'deploy', {}), text('And then')]) }));
    expect(decision.kind).toBe('tools');
    expect(decision.assistant?.content.slice(0, 3)).toEqual([thinking, redacted, toolUse('toolu_ok', 'deploy', {})]);
  });

  it('max_tokens inside the thinking itself: the unsigned block is dropped, a placeholder keeps the turn', () => {
    const unsigned: AssistantBlock = { type: 'thinking', thinking: 'Half a thou', signature: '' };
    const { decision } = handleStopReason(input({ response: response('max_tokens', [unsigned]) }));
    expect(decision.assistant?.content).toEqual([text('(no content)')]);
  });

  it('drift re-prompt: the drifted text becomes a placeholder after the thinking', () => {
    const { decision } = handleStopReason(input({ response: response('stop_sequence', [...opening, text('Sure! Anything else?')], '\nUser:') }));
    expect(decision.kind).toBe('continue');
    expect(decision.assistant?.content).toEqual([thinking, redacted, text('(response discarded: it drifted into writing the user turn)')]);
  });

  it('sanitizeAssistant: drops empty text, never touches thinking, adds a placeholder only after it', () => {
    expect(sanitizeAssistant([...opening, text('  '), toolUse('toolu_a')]).content).toEqual([thinking, redacted, toolUse('toolu_a')]);
    expect(sanitizeAssistant([thinking, text('')]).content).toEqual([thinking, text('(no content)')]);
    const emptyThinking: AssistantBlock = { type: 'thinking', thinking: '', signature: 'c2ln' };
    expect(sanitizeAssistant([emptyThinking, text('ok')]).content).toEqual([emptyThinking, text('ok')]);
  });

  it('end_turn nudge and re-emit keep the thinking with the answer', () => {
    const nudged = handleStopReason(input({ response: response('end_turn', [...opening, text('All done!')]) }));
    expect(nudged.decision.assistant?.content).toEqual([thinking, redacted, text('All done!')]);
    const lookalike: TextRecovery = { ...noRecovery, json_in_text: true, reason: 'not_in_tier:publish' };
    const reemit = handleStopReason(input({ recover: () => lookalike, response: response('end_turn', [...opening, text('{"tool":"publish"}')]) }));
    expect(reemit.decision.assistant?.content.slice(0, 2)).toEqual(opening);
  });
});

describe('progress updates: text between tool calls returned as thinking blocks', () => {
  const update: AssistantBlock = { type: 'thinking', thinking: 'Deployed and published; summing up.', signature: 'c2lnLXVwZGF0ZQ==' };
  const reasoning: AssistantBlock = { type: 'thinking', thinking: '', signature: 'c2lnLXJlYXNvbmluZw==' };

  it('count as what the model wrote where the run reads them, and are kept verbatim in the message', () => {
    const content = [reasoning, update, text('Luna Bakery is live.')];
    const read = handleStopReason(input({ finishVerified: true, progressUpdates: true, response: response('end_turn', content) }));
    expect(read.decision).toMatchObject({ kind: 'succeed', result: 'Deployed and published; summing up.\n\nLuna Bakery is live.' });
    expect(read.decision.assistant?.content).toEqual(content);
    const unread = handleStopReason(input({ finishVerified: true, progressUpdates: false, response: response('end_turn', content) }));
    expect(unread.decision).toMatchObject({ kind: 'succeed', result: 'Luna Bakery is live.' });
  });

  it('are not searched for calls written as text: a progress update precedes a native tool_use', () => {
    const seen: string[] = [];
    const callInUpdate: AssistantBlock = { type: 'thinking', thinking: '{"name": "deploy", "input": {}}', signature: 'c2ln' };
    handleStopReason(input({ progressUpdates: true, recover: (value) => (seen.push(value), noRecovery), response: response('end_turn', [callInUpdate, text('Next I deploy.')]) }));
    expect(seen).toEqual(['Next I deploy.']);
  });
});
