import { describe, expect, it } from 'vitest';
import { modelWrittenText, readsProgressUpdates } from './model-written-text.js';

const answer = [
  { type: 'thinking', thinking: '', signature: 'sig-reasoning' },
  { type: 'text', text: 'Planning the bakery site.' },
  { type: 'thinking', thinking: 'Writing the home page next.', signature: 'sig-update' },
  { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: { path: 'index.html', content: '<h1>Hi</h1>' } },
];

describe('what the model wrote', () => {
  it('joins text blocks and progress updates in order where the run reads them', () => {
    expect(modelWrittenText({ content: answer, progressUpdates: true })).toEqual({
      written: 'Planning the bakery site.\n\nWriting the home page next.',
      answer: 'Planning the bakery site.',
      progressUpdates: ['Writing the home page next.'],
    });
  });

  it('leaves thinking out where a non-empty block may be reasoning (summarized) or no display asks for updates', () => {
    expect(modelWrittenText({ content: answer, progressUpdates: false })).toEqual({ written: 'Planning the bakery site.', answer: 'Planning the bakery site.', progressUpdates: [] });
  });

  it('reads progress updates under the updates display and between_tools only', () => {
    expect(readsProgressUpdates({ thinking: 'adaptive', thinkingDisplay: 'updates' })).toBe(true);
    expect(readsProgressUpdates({ thinking: 'between_tools', thinkingDisplay: null })).toBe(true);
    expect(readsProgressUpdates({ thinking: 'adaptive', thinkingDisplay: 'summarized' })).toBe(false);
    expect(readsProgressUpdates({ thinking: 'manual', thinkingDisplay: 'omitted' })).toBe(false);
    expect(readsProgressUpdates({ thinking: 'off', thinkingDisplay: null })).toBe(false);
  });
});
