import { describe, expect, it } from 'vitest';
import type { TranscriptMessage } from '../domain/model-message.js';
import { noteForToolResults, SUMMARY_REQUEST, verifiedFinishSummary } from './summary-request.js';

const finishCall = (id: string, summary: string): TranscriptMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text: 'Wrapping up.' }, { type: 'tool_use', id, name: 'finish_turn', input: { summary } }],
});
const result = (id: string, isError: boolean): TranscriptMessage => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, content: isError ? 'Error (finish_gate_failed): …' : '{"finished":true}', ...(isError ? { is_error: true } : {}) }],
});

describe('the summary request', () => {
  it('follows the tool results after the gate, replacing a note written for the build; before it the note stays', () => {
    expect(noteForToolResults({ finishVerified: true, note: null })).toBe(SUMMARY_REQUEST);
    expect(noteForToolResults({ finishVerified: true, note: 'continue from where you left off' })).toBe(SUMMARY_REQUEST);
    expect(noteForToolResults({ finishVerified: false, note: 'continue from where you left off' })).toBe('continue from where you left off');
    expect(noteForToolResults({ finishVerified: false, note: null })).toBeNull();
  });
});

describe('verifiedFinishSummary', () => {
  it('is the summary of the finish_turn that passed, not of one the gate refused', () => {
    const messages: TranscriptMessage[] = [
      { role: 'user', content: 'Build a site.' },
      finishCall('toolu_1', 'Too early.'),
      result('toolu_1', true),
      finishCall('toolu_2', 'Luna Bakery is live at /sites/run_1/.'),
      result('toolu_2', false),
    ];
    expect(verifiedFinishSummary(messages)).toBe('Luna Bakery is live at /sites/run_1/.');
    expect(verifiedFinishSummary(messages.slice(0, 3))).toBeNull();
  });
});
