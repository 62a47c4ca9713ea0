// Phase 1 for the fallback formats, looked at only when tool intent is signalled:
//   json     the whole trimmed output is exactly one JSON object naming a tool (`tool`/`name`),
//            or a JSON array of such objects, one candidate each: what Mistral's
//            `[TOOL_CALLS][…]` and Granite's `<|tool_call|>[…]` become when the server drops
//            special tokens (vLLM's default `skip_special_tokens: true`);
//   fenced   a ```json (or plain ```) block whose content is one JSON object naming a tool;
//   bracket  the whole trimmed output is `[name(key=value, …)]`, one candidate per call.
// An object "names a tool" when its root has a `tool` or `name` key. A broken object that got as
// far as such a key still counts, so phase 2 can refuse it as invalid_json rather than the call
// vanishing into no_candidate.
import type { Candidate } from './candidate.js';
import type { FenceScan } from './fenced-blocks.js';
import { scanJsonValue, skipJsonWhitespace } from './json-scan.js';
import { splitBracketCalls } from './split-bracket-calls.js';
import { splitJsonValues } from './split-json-values.js';

/** `text` is the visible text with the intent markers blanked; `fences` its fenced blocks. */
export function extractFallbackCandidates({ text, fences }: { text: string; fences: FenceScan }): Candidate[] {
  const candidates: Candidate[] = [];
  const first = skipJsonWhitespace(text, 0);
  const last = lastNonWhitespace(text);

  if (first <= last) {
    if (text[first] === '{') {
      const json = objectNamingTool(text, first, last + 1);
      if (json) candidates.push({ mode: 'json', raw: json, declaredName: null, start: first, end: last + 1 });
    } else if (text[first] === '[' && text[last] === ']' && text[skipJsonWhitespace(text, first + 1)] === '{') {
      candidates.push(...arrayOfCallCandidates(text, first, last + 1));
    } else if (text[first] === '[' && text[last] === ']') {
      const listText = text.slice(first, last + 1);
      for (const span of splitBracketCalls(listText)) {
        candidates.push({
          mode: 'bracket',
          raw: listText,
          declaredName: null,
          start: first + span.start,
          end: first + span.end,
        });
      }
    }
  }

  for (const block of fences.blocks) {
    if (!holdsJson(block.info)) continue;
    const contentFirst = skipJsonWhitespace(text, block.contentStart);
    if (contentFirst >= block.contentEnd || text[contentFirst] !== '{') continue;
    const contentEnd = lastNonWhitespace(text, block.contentEnd) + 1;
    const json = objectNamingTool(text, contentFirst, contentEnd);
    if (json) candidates.push({ mode: 'fenced', raw: json, declaredName: null, start: contentFirst, end: contentEnd });
  }
  return candidates;
}

/**
 * `[{…}, {…}]`: one json candidate per element when every element is an object naming a tool;
 * otherwise, when the first element names one, the whole list as one candidate that phase 2
 * refuses (invalid_json when broken, payload_not_object when it is a list with other things).
 */
function arrayOfCallCandidates(text: string, start: number, end: number): Candidate[] {
  const spans = splitJsonValues({ text, start, end, form: 'array' });
  if (spans !== null && spans.length > 0) {
    const elements = spans.map((span) => objectNamingTool(text, span.start, span.end));
    if (elements.every((element) => element !== null)) {
      return spans.map((span, index) => ({ mode: 'json', raw: elements[index] ?? '', declaredName: null, start: span.start, end: span.end }));
    }
  }
  const firstElement = skipJsonWhitespace(text, start + 1);
  const namesTool = scanJsonValue({ text, start: firstElement, end }).topLevelKeys.some((key) => key === 'tool' || key === 'name');
  return namesTool ? [{ mode: 'json', raw: text.slice(start, end), declaredName: null, start, end }] : [];
}

/** The object text in [start, end) when it is one JSON object (or a broken one) naming a tool. */
function objectNamingTool(text: string, start: number, end: number): string | null {
  // Bounded by `end`, the scan stays inside its block: blocks are disjoint, so the work is linear.
  const scan = scanJsonValue({ text, start, end });
  const namesTool = scan.topLevelKeys.includes('tool') || scan.topLevelKeys.includes('name');
  if (!namesTool) return null;
  // A complete object followed by more text is not "exactly one object": leave it.
  if (scan.ok && scan.end !== end) return null;
  return text.slice(start, end);
}

/** Plain fences and json fences (any case) may hold a call. */
function holdsJson(info: string): boolean {
  return info === '' || info === 'json' || (info.length === 4 && info.toLowerCase() === 'json');
}

/** The index of the last non-whitespace character before `before`, or -1. */
function lastNonWhitespace(text: string, before = text.length): number {
  let index = before - 1;
  while (index >= 0) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) break;
    index -= 1;
  }
  return index;
}
