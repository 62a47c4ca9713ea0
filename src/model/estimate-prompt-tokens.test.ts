import { describe, expect, it } from 'vitest';
import { estimatePromptTokens, PROMPT_ESTIMATE_OVERHEAD_TOKENS } from './estimate-prompt-tokens.js';
import { estimateTokens } from '../sim/token-estimate.js';

describe('estimatePromptTokens', () => {
  it('counts characters / 4 of system, tools and messages with a margin above it', () => {
    const system = 'You are a website builder.';
    const tools = [{ name: 'write_file', description: 'Writes a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }];
    const messages = [{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(40_000) }] }];
    const estimate = estimatePromptTokens({ system, tools, messages });
    const plain = Math.ceil(JSON.stringify({ system, tools, messages }).length / 4);
    expect(estimate).toBeGreaterThan(plain + PROMPT_ESTIMATE_OVERHEAD_TOKENS);
    expect(estimate).toBeLessThan(plain * 1.25 + PROMPT_ESTIMATE_OVERHEAD_TOKENS);
    // Never under what the simulator counts for the same prompt (its JSON of each block / 4).
    const simulatorCount = estimateTokens({ text: system + JSON.stringify(tools[0]) + JSON.stringify(messages[0]?.content[0]) });
    expect(estimate).toBeGreaterThan(simulatorCount);
  });

  it('grows with the transcript', () => {
    const short = estimatePromptTokens({ system: 's', tools: [], messages: [{ role: 'user', content: 'hi' }] });
    const long = estimatePromptTokens({ system: 's', tools: [], messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'y'.repeat(8000) }] });
    expect(long - short).toBeGreaterThanOrEqual(2000);
  });

  it('gives the same estimate from a known messages length as from the messages, and measures a tools array once', () => {
    const system = 'You build websites.';
    const tools = [{ name: 'write_file', description: 'Writes a file', input_schema: { type: 'object' } }];
    const messages = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'text', text: 'done' }] }];
    const raws = messages.map((message) => JSON.stringify(message));
    const known = raws.reduce((sum, raw) => sum + raw.length, 0) + raws.length + 1;
    expect(known).toBe(JSON.stringify(messages).length);
    expect(estimatePromptTokens({ system, tools, messages: [], messagesCharacters: known })).toBe(estimatePromptTokens({ system, tools, messages }));
    // The tools array's size is cached by identity: the same array mutated is not re-measured.
    const before = estimatePromptTokens({ system, tools, messages });
    tools.push({ name: 'read_file', description: 'x'.repeat(4000), input_schema: { type: 'object' } });
    expect(estimatePromptTokens({ system, tools, messages })).toBe(before);
  });
});
