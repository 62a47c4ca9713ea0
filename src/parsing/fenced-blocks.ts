// Markdown code fences, found line by line the CommonMark way: an opening line of three or more
// backticks (indented at most three spaces) with an optional info string, closed by a line of at
// least as many backticks and nothing else. A fence line inside an open block that carries an
// info string is content, so a ```json inside a ```markdown block is not a block of its own.
// Tilde fences are not recognised. One pass over the lines: linear.

export interface FencedBlock {
  /** The info string, trimmed (`json`, `xml`, or empty). */
  info: string;
  contentStart: number;
  /** The start of the closing fence line. */
  contentEnd: number;
}

export interface FenceScan {
  /** Closed blocks, in order. */
  blocks: FencedBlock[];
  /** The text ends inside an open block. */
  endsInsideFence: boolean;
}

export function findFencedBlocks(text: string): FenceScan {
  const blocks: FencedBlock[] = [];
  let open: { fenceLength: number; info: string; contentStart: number } | null = null;
  let lineStart = 0;

  for (;;) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline < 0 ? text.length : newline;

    let index = lineStart;
    while (index < lineEnd && index - lineStart < 4 && text[index] === ' ') index += 1;
    const indentation = index - lineStart;
    let fenceLength = 0;
    if (indentation <= 3) {
      while (index + fenceLength < lineEnd && text[index + fenceLength] === '`') fenceLength += 1;
    }

    if (fenceLength >= 3) {
      const rest = text.slice(index + fenceLength, lineEnd);
      if (open === null) {
        if (!rest.includes('`')) {
          open = { fenceLength, info: rest.trim(), contentStart: Math.min(lineEnd + 1, text.length) };
        }
      } else if (fenceLength >= open.fenceLength && rest.trim() === '') {
        blocks.push({ info: open.info, contentStart: open.contentStart, contentEnd: lineStart });
        open = null;
      }
    }

    if (newline < 0) break;
    lineStart = newline + 1;
  }
  return { blocks, endsInsideFence: open !== null };
}
