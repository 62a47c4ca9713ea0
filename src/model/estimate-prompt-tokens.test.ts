import { describe, expect, it } from 'vitest';
import { estimatePromptTokens, promptCharacters, PROMPT_ESTIMATE_OVERHEAD_TOKENS, PROMPT_ESTIMATE_RATIO } from './estimate-prompt-tokens.js';
import { TOKENIZER_RATIOS } from '../domain/estimate-text-tokens.js';
import { countModelTokens } from '../sim/count-model-tokens.js';

const system = 'You are a website builder.';
const tools = [{ name: 'write_file', description: 'Writes a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }];
const messages = [{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(40_000) }] }];

describe('estimatePromptTokens', () => {
  it('counts characters / 4 of system, tools and messages with a margin above it, on the classic tokenizer', () => {
    const estimate = estimatePromptTokens({ system, tools, messages, tokenizer: 'classic' });
    const plain = Math.ceil(JSON.stringify({ system, tools, messages }).length / 4);
    expect(estimate).toBeGreaterThan(plain + PROMPT_ESTIMATE_OVERHEAD_TOKENS);
    expect(estimate).toBeLessThan(plain * 1.25 + PROMPT_ESTIMATE_OVERHEAD_TOKENS);
    // Never under what the simulator counts for the same prompt (its text of each block / 4).
    const promptText = system + JSON.stringify(tools[0]) + JSON.stringify(messages[0]?.content[0]);
    expect(estimate).toBeGreaterThan(countModelTokens({ characters: promptText.length, model: { tokenizer: 'classic' } }));
  });

  it('makes ~30% more tokens of the same prompt on the newer tokenizer (Opus 4.7 and later, Sonnet 5 / 5.5, Haiku 5.5)', () => {
    const classic = estimatePromptTokens({ system, tools, messages, tokenizer: 'classic' }) - PROMPT_ESTIMATE_OVERHEAD_TOKENS;
    const newer = estimatePromptTokens({ system, tools, messages, tokenizer: 'newer' }) - PROMPT_ESTIMATE_OVERHEAD_TOKENS;
    expect(newer / classic).toBeCloseTo(TOKENIZER_RATIOS.newer, 3);
    // Still above what a newer-tokenizer model counts for it.
    const promptText = system + JSON.stringify(tools[0]) + JSON.stringify(messages[0]?.content[0]);
    expect(newer + PROMPT_ESTIMATE_OVERHEAD_TOKENS).toBeGreaterThan(countModelTokens({ characters: promptText.length, model: { tokenizer: 'newer' } }));
  });

  it('takes a measured ratio when it is above the documented one with its margin, never below it', () => {
    const characters = promptCharacters({ system, tools, messages });
    const documented = estimatePromptTokens({ system, tools, messages, tokenizer: 'newer' });
    // A measurement under the floor (a prompt of prose, an odd count) changes nothing.
    expect(estimatePromptTokens({ system, tools, messages, tokenizer: 'newer', measuredRatio: 0.9 })).toBe(documented);
    // One above it is used as it is.
    const measuredRatio = TOKENIZER_RATIOS.newer * PROMPT_ESTIMATE_RATIO * 1.2;
    expect(estimatePromptTokens({ system, tools, messages, tokenizer: 'newer', measuredRatio })).toBe(Math.ceil((characters / 4) * measuredRatio) + PROMPT_ESTIMATE_OVERHEAD_TOKENS);
  });

  it('grows with the transcript', () => {
    const short = estimatePromptTokens({ system: 's', tools: [], messages: [{ role: 'user', content: 'hi' }], tokenizer: 'classic' });
    const long = estimatePromptTokens({ system: 's', tools: [], messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'y'.repeat(8000) }], tokenizer: 'classic' });
    expect(long - short).toBeGreaterThanOrEqual(2000);
  });

  it('gives the same estimate from a known messages length as from the messages, and measures a tools array once', () => {
    const system = 'You build websites.';
    const tools = [{ name: 'write_file', description: 'Writes a file', input_schema: { type: 'object' } }];
    const messages = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'text', text: 'done' }] }];
    const raws = messages.map((message) => JSON.stringify(message));
    const known = raws.reduce((sum, raw) => sum + raw.length, 0) + raws.length + 1;
    expect(known).toBe(JSON.stringify(messages).length);
    expect(estimatePromptTokens({ system, tools, messages: [], messagesCharacters: known, tokenizer: 'classic' })).toBe(estimatePromptTokens({ system, tools, messages, tokenizer: 'classic' }));
    expect(promptCharacters({ system, tools, messages })).toBe(JSON.stringify({ system, tools, messages }).length);
    // The tools array's size is cached by identity: the same array mutated is not re-measured.
    const before = estimatePromptTokens({ system, tools, messages, tokenizer: 'classic' });
    tools.push({ name: 'read_file', description: 'x'.repeat(4000), input_schema: { type: 'object' } });
    expect(estimatePromptTokens({ system, tools, messages, tokenizer: 'classic' })).toBe(before);
  });
});
