// Renders the 1200x630 Open Graph image as SVG. Title and subtitle come from the model, so every
// character is XML-escaped and characters XML 1.0 forbids are dropped: the SVG must stay
// well-formed whatever the text.

export const OG_WIDTH = 1200;
export const OG_HEIGHT = 630;

/** Escapes text for XML content and attribute values, dropping characters XML cannot hold. */
export function escapeXml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
    .replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** Greedy word wrap to at most maxLines lines, ending in an ellipsis when text is left over. */
export function wrapText(text: string, lineLength: number, maxLines: number): string[] {
  const lines: string[] = [];
  let line = '';
  const words = text.trim().split(/\s+/).filter(Boolean);
  for (let index = 0; index < words.length; index += 1) {
    let word = words[index] ?? '';
    while (word.length > lineLength) {
      if (line) {
        lines.push(line);
        line = '';
      }
      lines.push(word.slice(0, lineLength));
      word = word.slice(lineLength);
    }
    if (!line) line = word;
    else if (line.length + 1 + word.length <= lineLength) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line) lines.push(line);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = `${(kept[maxLines - 1] ?? '').slice(0, lineLength - 1)}…`;
  return kept;
}

export interface OgImageInput {
  title: string;
  subtitle?: string;
  colors?: { primary: string; background: string; text: string } | null;
}

/** The SVG document of the OG image. */
export function renderOgImage({ title, subtitle, colors }: OgImageInput): string {
  const background = colors?.background ?? '#0f172a';
  const text = colors?.text ?? '#f8fafc';
  const accent = colors?.primary ?? '#38bdf8';
  const titleLines = wrapText(title, 28, 3);
  const subtitleLines = subtitle ? wrapText(subtitle, 56, 2) : [];
  const titleTop = 200;
  const titleTspans = titleLines.map((line, index) => `<tspan x="80" y="${titleTop + index * 80}">${escapeXml(line)}</tspan>`).join('');
  const subtitleTop = titleTop + titleLines.length * 80 + 30;
  const subtitleTspans = subtitleLines.map((line, index) => `<tspan x="80" y="${subtitleTop + index * 44}">${escapeXml(line)}</tspan>`).join('');
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${OG_WIDTH}" height="${OG_HEIGHT}" viewBox="0 0 ${OG_WIDTH} ${OG_HEIGHT}">`,
    `<rect width="${OG_WIDTH}" height="${OG_HEIGHT}" fill="${escapeXml(background)}"/>`,
    `<rect x="80" y="100" width="160" height="10" fill="${escapeXml(accent)}"/>`,
    `<text font-family="system-ui, sans-serif" font-size="68" font-weight="700" fill="${escapeXml(text)}">${titleTspans}</text>`,
  ];
  if (subtitleTspans) {
    parts.push(`<text font-family="system-ui, sans-serif" font-size="36" fill="${escapeXml(text)}" fill-opacity="0.8">${subtitleTspans}</text>`);
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
