import { describe, expect, it } from 'vitest';
import { fontStack, renderThemeCss } from './render-theme-css.js';

describe('renderThemeCss', () => {
  it('declares colors and fonts as custom properties', () => {
    const css = renderThemeCss({
      colors: { primary: '#112233', background: '#ffffff', text: '#000000', accent: '#ff0000' },
      fonts: { heading: 'Playfair Display, serif', body: 'Inter' },
    });
    expect(css).toContain('  --color-primary: #112233;');
    expect(css).toContain('  --color-accent: #ff0000;');
    expect(css).toContain('  --font-heading: "Playfair Display", serif;');
    expect(css).toContain('  --font-body: "Inter", sans-serif;');
  });

  it('renders an empty :root when nothing is set', () => {
    expect(renderThemeCss({ colors: null, fonts: null })).toMatch(/:root \{\n\}\n$/);
  });
});

describe('fontStack', () => {
  it('cannot be used to break out of the declaration', () => {
    const stack = fontStack('Evil"; } body { background: url(http://x) ; \\ \n');
    expect(stack).toBe('"Evil\\"; } body { background: url(http://x) ; \\\\", sans-serif');
    expect(fontStack('"Quoted Name", \'Other\', MONOSPACE')).toBe('"Quoted Name", "Other", monospace');
  });
});
