import { describe, expect, it } from 'vitest';
import { maskToolIntentMarkers } from './tool-intent-marker.js';

describe('maskToolIntentMarkers', () => {
  it('finds a TOOL_CALL: line and blanks the marker, keeping the rest of the line', () => {
    const result = maskToolIntentMarkers('Calling now.\n  TOOL_CALL: [f(a=1)]');
    expect(result.found).toBe(true);
    expect(result.masked).toBe('Calling now.\n' + ' '.repeat(12) + ' [f(a=1)]');
  });

  it('finds <tool_intent/> anywhere and keeps offsets', () => {
    const text = 'x<tool_intent/>y';
    const result = maskToolIntentMarkers(text);
    expect(result).toEqual({ found: true, masked: 'x' + ' '.repeat(14) + 'y' });
    expect(result.masked.length).toBe(text.length);
  });

  it('ignores TOOL_CALL: in the middle of a line', () => {
    expect(maskToolIntentMarkers('see TOOL_CALL: below').found).toBe(false);
  });
});
