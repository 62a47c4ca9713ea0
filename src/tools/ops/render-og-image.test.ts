import { describe, expect, it } from 'vitest';
import { escapeXml, renderOgImage, wrapText } from './render-og-image.js';

describe('renderOgImage', () => {
  it('renders a 1200x630 SVG with the title and subtitle escaped', () => {
    const svg = renderOgImage({ title: 'Tom & Jerry\'s <Bakery> "best"', subtitle: 'Fresh </text><script>alert(1)</script>' });
    expect(svg).toContain('width="1200" height="630"');
    expect(svg).toContain('>Tom &#38; Jerry&#39;s &#60;Bakery&#62;</tspan><tspan x="80" y="280">&#34;best&#34;<');
    expect(svg).not.toContain('<script>');
    expect(svg.match(/<text /g)).toHaveLength(2);
  });

  it('uses the theme colors when there are any', () => {
    const svg = renderOgImage({ title: 'x', colors: { primary: '#aa0000', background: '#00bb00', text: '#0000cc' } });
    expect(svg).toContain('fill="#00bb00"');
    expect(svg).toContain('fill="#aa0000"');
    expect(svg).toContain('fill="#0000cc"');
  });
});

describe('escapeXml', () => {
  it('drops characters XML cannot hold', () => {
    expect(escapeXml('a\u0000b\u0008c\td\ud800e')).toBe('abc\tde');
  });
});

describe('wrapText', () => {
  it('wraps by words, splits long words and ends cut text with an ellipsis', () => {
    expect(wrapText('one two three four', 9, 3)).toEqual(['one two', 'three', 'four']);
    expect(wrapText('abcdefghijkl', 5, 5)).toEqual(['abcde', 'fghij', 'kl']);
    expect(wrapText('a b c d e f', 3, 2)).toEqual(['a b', 'c …']);
  });
});
