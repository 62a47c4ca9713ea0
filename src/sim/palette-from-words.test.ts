import { describe, expect, it } from 'vitest';
import { paletteFromWords } from './palette-from-words.js';

describe('the simulated builder’s palette from the user’s words', () => {
  it('makes warm browns and cream a brown site on cream', () => {
    expect(paletteFromWords('warm browns and cream')).toEqual({ primary: '#6b4226', background: '#fff8e7', text: '#1b1f24', accent: '#6b4226' });
  });

  it('takes the colours in the order given, a named green whole', () => {
    expect(paletteFromWords('Forest green with gold accents, please')).toEqual({ primary: '#228b22', background: '#ffffff', text: '#1b1f24', accent: '#c9a227' });
    expect(paletteFromWords('navy and cream')).toMatchObject({ primary: '#1f2a44', background: '#fff8e7' });
  });

  it('names no palette when the words name no colour', () => {
    expect(paletteFromWords('whatever you think is best')).toBeNull();
  });
});
