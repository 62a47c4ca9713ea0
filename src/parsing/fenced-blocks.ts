// Markdown code fences, found line by line the CommonMark way: an opening line of three or more
// backticks (indented at most three spaces) with an optional info string, closed by a line of at
// least as many backticks and nothing else. A fence line inside an open block that carries an
// info string is content, so a ```json inside a ```markdown block is not a block of its own.
// Tilde fences are not recognised. One pass over the lines, reading character codes and slicing
// only info strings: linear, and cheap even for a megabyte of fence lines.

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

const BACKTICK = 0x60;
const SPACE = 0x20;

export function findFencedBlocks(text: string): FenceScan {
  const blocks: FencedBlock[] = [];
  let openFenceLength = 0;
  let openInfo = '';
  let openContentStart = 0;
  let lineStart = 0;

  for (;;) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline < 0 ? text.length : newline;

    let index = lineStart;
    while (index < lineEnd && index - lineStart < 4 && text.charCodeAt(index) === SPACE) index += 1;
    let fenceLength = 0;
    if (index - lineStart <= 3) {
      while (index + fenceLength < lineEnd && text.charCodeAt(index + fenceLength) === BACKTICK) fenceLength += 1;
    }

    if (fenceLength >= 3) {
      const restStart = index + fenceLength;
      if (openFenceLength === 0) {
        if (!containsBacktick(text, restStart, lineEnd)) {
          openFenceLength = fenceLength;
          openInfo = text.slice(restStart, lineEnd).trim();
          openContentStart = Math.min(lineEnd + 1, text.length);
        }
      } else if (fenceLength >= openFenceLength && isBlank(text, restStart, lineEnd)) {
        blocks.push({ info: openInfo, contentStart: openContentStart, contentEnd: lineStart });
        openFenceLength = 0;
      }
    }

    if (newline < 0) break;
    lineStart = newline + 1;
  }
  return { blocks, endsInsideFence: openFenceLength > 0 };
}

function containsBacktick(text: string, from: number, to: number): boolean {
  for (let index = from; index < to; index += 1) {
    if (text.charCodeAt(index) === BACKTICK) return true;
  }
  return false;
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let index = from; index < to; index += 1) {
    const code = text.charCodeAt(index);
    if (code !== SPACE && code !== 0x09 && code !== 0x0d) return false;
  }
  return true;
}
