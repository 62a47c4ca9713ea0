// The simulated builder's colours from what the user said (issue #34: an answer "warm browns and
// cream" to its colour question left the default blue). Colour names in the text, in the order
// given, make the palette: the lightest named one the background when it is light enough to read
// on, the first other one the primary, the next the accent; the text stays dark. Nothing named:
// null, and the builder keeps its default palette.
import type { SitePalette as Palette } from './site-plan.js';

/** Common colour words and a hex for each, plurals matched too ("browns"). */
const NAMED_COLOURS: ReadonlyArray<readonly [string, string]> = [
  ['forest green', '#228b22'],
  ['navy', '#1f2a44'],
  ['cream', '#fff8e7'],
  ['ivory', '#fffff0'],
  ['beige', '#f5f0e1'],
  ['white', '#ffffff'],
  ['black', '#111111'],
  ['brown', '#6b4226'],
  ['chocolate', '#5a3a22'],
  ['tan', '#c8a165'],
  ['gold', '#c9a227'],
  ['yellow', '#f2c200'],
  ['orange', '#e8731c'],
  ['red', '#c0392b'],
  ['maroon', '#7b1e2b'],
  ['burgundy', '#800020'],
  ['pink', '#e87aa4'],
  ['coral', '#f0775a'],
  ['purple', '#6a3d9a'],
  ['lavender', '#b9a6e0'],
  ['blue', '#1f6feb'],
  ['teal', '#138a8a'],
  ['turquoise', '#30b5b0'],
  ['mint', '#a8e6cf'],
  ['olive', '#6b7a2a'],
  ['sage', '#9caf88'],
  ['green', '#2e8b57'],
  ['grey', '#6e7781'],
  ['gray', '#6e7781'],
  ['charcoal', '#333a40'],
];

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((start) => Number.parseInt(hex.slice(start, start + 2), 16) / 255) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The palette the words name, or null when they name no colour. */
export function paletteFromWords(text: string): Palette | null {
  const lower = text.toLowerCase();
  const found: Array<{ at: number; hex: string }> = [];
  let rest = lower;
  for (const [name, hex] of NAMED_COLOURS) {
    const match = new RegExp(`\\b${name}(?:e?s)?\\b`).exec(rest);
    if (!match) continue;
    found.push({ at: match.index, hex });
    // "forest green" is not also "green".
    rest = `${rest.slice(0, match.index)}${' '.repeat(match[0].length)}${rest.slice(match.index + match[0].length)}`;
  }
  if (found.length === 0) return null;
  const colours = found.sort((one, other) => one.at - other.at).map((colour) => colour.hex);
  const lightest = [...colours].sort((one, other) => luminance(other) - luminance(one))[0] as string;
  const background = luminance(lightest) > 0.85 ? lightest : '#ffffff';
  const others = colours.filter((hex) => hex !== background);
  const primary = others[0] ?? '#1f6feb';
  return { primary, background, text: '#1b1f24', accent: others[1] ?? primary };
}
