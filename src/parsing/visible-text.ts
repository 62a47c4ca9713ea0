// The part of a model's text the parser may search: everything outside <think>…</think>.
// Reasoning is where a model drafts calls it then rejects, so nothing there may execute.

const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';

/**
 * Removes reasoning blocks. An unclosed `<think>` hides everything after it. A `</think>` that
 * comes before any `<think>` closes a block the prompt opened (templates such as QwQ's end the
 * prompt with `<think>\n`), so the text before it is hidden too. Each removed block reads as a
 * line break, so no token can be glued together across it.
 */
export function extractVisibleText(text: string): string {
  const segments: string[] = [];
  let position = 0;

  const firstClose = text.indexOf(THINK_CLOSE);
  if (firstClose >= 0) {
    const firstOpen = text.indexOf(THINK_OPEN);
    if (firstOpen < 0 || firstClose < firstOpen) position = firstClose + THINK_CLOSE.length;
  }

  for (;;) {
    const open = text.indexOf(THINK_OPEN, position);
    if (open < 0) {
      segments.push(text.slice(position));
      break;
    }
    segments.push(text.slice(position, open));
    const close = text.indexOf(THINK_CLOSE, open + THINK_OPEN.length);
    if (close < 0) break;
    position = close + THINK_CLOSE.length;
  }
  return segments.join('\n');
}
