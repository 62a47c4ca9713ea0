// Reads back a tool call the simulator wrote as text (any of TEXT_TOOL_CALL_FORMATS). The
// `text_tool_calls` scenario uses it to see which calls it already drifted on; tests use it to
// check every format carries a valid call.
import type { PlannedToolCall } from './planned-turn.js';

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    return asObject(JSON.parse(text));
  } catch {
    return undefined;
  }
}

function fromNamedObject(object: Record<string, unknown> | undefined, nameKey: string, inputKey: string | null): PlannedToolCall | null {
  if (!object || typeof object[nameKey] !== 'string') return null;
  if (inputKey === null) {
    const { [nameKey]: name, ...input } = object;
    return { name: name as string, input };
  }
  const input = asObject(object[inputKey] ?? {});
  return input ? { name: object[nameKey] as string, input } : null;
}

/** Rewrites Python-style keyword arguments (`a="x", b=True`) as a JSON object body. */
function keywordArgumentsToJson(source: string): string {
  let output = '';
  let depth = 0;
  let index = 0;
  while (index < source.length) {
    const character = source[index] as string;
    if (character === '"') {
      let end = index + 1;
      while (end < source.length && source[end] !== '"') end += source[end] === '\\' ? 2 : 1;
      output += source.slice(index, end + 1);
      index = end + 1;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(index))?.[0];
    if (word) {
      const rest = source.slice(index + word.length);
      if (depth === 0 && /^\s*=/.test(rest)) {
        output += JSON.stringify(word) + ':';
        index += word.length + (/^\s*=/.exec(rest)?.[0].length ?? 0);
        continue;
      }
      output += word === 'True' ? 'true' : word === 'False' ? 'false' : word === 'None' ? 'null' : word;
      index += word.length;
      continue;
    }
    if (character === '[' || character === '{') depth += 1;
    if (character === ']' || character === '}') depth -= 1;
    output += character;
    index += 1;
  }
  return `{${output}}`;
}

/** The tool call written in `text`, or null when the text holds none. */
export function parseTextToolCall({ text }: { text: string }): PlannedToolCall | null {
  const trimmed = text.trim();

  const toolTag = /<tool name="([^"]+)">([\s\S]*?)<\/tool>/.exec(trimmed);
  if (toolTag) {
    const input = parseJson(toolTag[2] ?? '');
    return input ? { name: toolTag[1] ?? '', input } : null;
  }
  const toolUseTag = /<tool_use>([\s\S]*?)<\/tool_use>/.exec(trimmed);
  if (toolUseTag) return fromNamedObject(parseJson(toolUseTag[1] ?? ''), 'name', 'input');
  const toolCallTag = /<tool_call>([\s\S]*?)<\/tool_call>/.exec(trimmed);
  if (toolCallTag) return fromNamedObject(parseJson(toolCallTag[1] ?? ''), 'name', 'arguments');

  const fenced = /```json\s*\n([\s\S]*?)\n```/.exec(trimmed) ?? /```json\s*\n([\s\S]*)$/.exec(trimmed);
  if (fenced) return fromNamedObject(parseJson((fenced[1] ?? '').trim()), 'tool', null);

  if (trimmed.startsWith('{') && trimmed.endsWith('}')) return fromNamedObject(parseJson(trimmed), 'tool', 'arguments');

  const bracket = /^\[([A-Za-z0-9_-]+)\(([\s\S]*)\)\]$/.exec(trimmed);
  if (bracket) {
    const input = parseJson(keywordArgumentsToJson(bracket[2] ?? ''));
    return input ? { name: bracket[1] ?? '', input } : null;
  }
  return null;
}
