// Reads back a tool call the simulator wrote as text (any of TEXT_TOOL_CALL_FORMATS). A text holds
// one call, so each payload runs to the last closing marker (a closing tag inside a JSON string
// does not cut it short). The `text_tool_calls` scenario uses it to see which calls it already
// drifted on; tests use it to check every format carries a valid call.
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

function firstOfArray(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? asObject(value[0]) : undefined;
  } catch {
    return undefined;
  }
}

function namedArguments(name: string | undefined, argumentsText: string | undefined): PlannedToolCall | null {
  const input = parseJson(argumentsText ?? '');
  return name && input ? { name, input } : null;
}

const NAME = '([A-Za-z0-9_.-]+)';
const DEEPSEEK_V3_CALL = new RegExp(`<｜tool▁call▁begin｜>function<｜tool▁sep｜>${NAME}\\n\`\`\`json\\n([\\s\\S]*)\\n\`\`\`<｜tool▁call▁end｜>`);
const DEEPSEEK_V31_CALL = new RegExp(`<｜tool▁call▁begin｜>${NAME}<｜tool▁sep｜>([\\s\\S]*)<｜tool▁call▁end｜>`);

/** The open-model family formats (text-tool-call-format.ts), read before the others: DeepSeek V3
 * holds a ```json fence, and the JSON readers below would take Llama's object for the wrong key. */
function parseFamilyToolCall(trimmed: string): PlannedToolCall | null | undefined {
  const mistralArray = /^\[TOOL_CALLS\]\s*(\[[\s\S]*\])$/.exec(trimmed);
  if (mistralArray) return fromNamedObject(firstOfArray(mistralArray[1] ?? ''), 'name', 'arguments');
  const mistralNamed = new RegExp(`^\\[TOOL_CALLS\\]${NAME}\\[ARGS\\]([\\s\\S]*)$`).exec(trimmed);
  if (mistralNamed) return namedArguments(mistralNamed[1], mistralNamed[2]);
  const pythonTag = /^<\|python_tag\|>([\s\S]*)$/.exec(trimmed);
  if (pythonTag) return fromNamedObject(parseJson(pythonTag[1] ?? ''), 'name', 'parameters');
  const deepSeek = DEEPSEEK_V3_CALL.exec(trimmed) ?? DEEPSEEK_V31_CALL.exec(trimmed);
  if (deepSeek) return namedArguments(deepSeek[1], deepSeek[2]);
  const granite = /^<\|tool_call\|>(\[[\s\S]*\])$/.exec(trimmed);
  if (granite) return fromNamedObject(firstOfArray(granite[1] ?? ''), 'name', 'arguments');
  const functionTag = new RegExp(`<function=${NAME}>([\\s\\S]*)</function>`).exec(trimmed);
  if (functionTag) return namedArguments(functionTag[1], functionTag[2]);
  const recipient = new RegExp(`^>>>${NAME}\\n([\\s\\S]*)$`).exec(trimmed);
  if (recipient) return namedArguments(recipient[1], recipient[2]);
  return undefined;
}

/** The tool call written in `text`, or null when the text holds none. */
export function parseTextToolCall({ text }: { text: string }): PlannedToolCall | null {
  const trimmed = text.trim();
  const family = parseFamilyToolCall(trimmed);
  if (family !== undefined) return family;

  const toolTag = /<tool name="([^"]+)">([\s\S]*)<\/tool>/.exec(trimmed);
  if (toolTag) {
    const input = parseJson(toolTag[2] ?? '');
    return input ? { name: toolTag[1] ?? '', input } : null;
  }
  const toolUseTag = /<tool_use>([\s\S]*)<\/tool_use>/.exec(trimmed);
  if (toolUseTag) return fromNamedObject(parseJson(toolUseTag[1] ?? ''), 'name', 'input');
  const toolCallTag = /<tool_call>([\s\S]*)<\/tool_call>/.exec(trimmed);
  if (toolCallTag) return fromNamedObject(parseJson(toolCallTag[1] ?? ''), 'name', 'arguments');

  const fenced = /```json\s*\n([\s\S]*?)\n```/.exec(trimmed) ?? /```json\s*\n([\s\S]*)$/.exec(trimmed);
  if (fenced) return fromNamedObject(parseJson((fenced[1] ?? '').trim()), 'tool', null);

  if (trimmed.startsWith('{') && trimmed.endsWith('}')) {
    const object = parseJson(trimmed);
    // `{"tool", "arguments"}` (bare_json) or Llama's `{"name", "parameters"}` (llama_json).
    return object && 'tool' in object ? fromNamedObject(object, 'tool', 'arguments') : fromNamedObject(object, 'name', 'parameters');
  }

  const bracket = /^\[([A-Za-z0-9_-]+)\(([\s\S]*)\)\]$/.exec(trimmed);
  if (bracket) {
    const input = parseJson(keywordArgumentsToJson(bracket[2] ?? ''));
    return input ? { name: bracket[1] ?? '', input } : null;
  }
  return null;
}
