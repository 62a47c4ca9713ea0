// The part of a model's text the parser may search: everything outside reasoning blocks.
// Reasoning is where a model drafts calls it then rejects, so nothing there may execute.
// Two spellings: `<think>…</think>` (DeepSeek R1, Qwen, QwQ, Magistral before v13) and Mistral's
// `[THINK]…[/THINK]` special tokens (tokenizer v13+: Magistral-2509, Ministral-3-Reasoning,
// Mistral-Medium-3.5; mistral-common and their chat_template.jinja), which a server shows when it
// keeps special tokens, as it must for `[TOOL_CALLS]` to be seen.

const REASONING_TAGS = [
  { open: '<think>', close: '</think>' },
  { open: '[THINK]', close: '[/THINK]' },
] as const;

/**
 * Removes reasoning blocks. An unclosed opening tag hides everything after it. A closing tag that
 * comes before any opening one closes a block the prompt opened (templates such as QwQ's end the
 * prompt with `<think>\n`), so the text before it is hidden too. Each removed block reads as a
 * line break, so no token can be glued together across it.
 */
export function extractVisibleText(text: string): string {
  let visible = text;
  for (const { open, close } of REASONING_TAGS) visible = withoutBlocks(visible, open, close);
  return visible;
}

function withoutBlocks(text: string, openTag: string, closeTag: string): string {
  if (!text.includes(closeTag) && !text.includes(openTag)) return text;
  const segments: string[] = [];
  let position = 0;

  const firstClose = text.indexOf(closeTag);
  if (firstClose >= 0) {
    const firstOpen = text.indexOf(openTag);
    if (firstOpen < 0 || firstClose < firstOpen) position = firstClose + closeTag.length;
  }

  for (;;) {
    const open = text.indexOf(openTag, position);
    if (open < 0) {
      segments.push(text.slice(position));
      break;
    }
    segments.push(text.slice(position, open));
    const close = text.indexOf(closeTag, open + openTag.length);
    if (close < 0) break;
    position = close + closeTag.length;
  }
  return segments.join('\n');
}
