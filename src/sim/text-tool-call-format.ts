// The ways a drifting model writes a tool call as text instead of a tool_use block. The fleet
// must recognise each of these; the simulator produces them so that recovery path is exercised.
// The first seven are what a Claude model drifts into; the rest are the chat-template formats
// open models write when an OpenAI-compatible server runs without a tool parser (each cites its
// source in src/parsing/extract-*-candidates.ts).
import type { ParseMode } from '../domain/parse-modes.js';
import { assertNever } from '../domain/assert-never.js';
import type { PlannedToolCall } from './planned-turn.js';

export const TEXT_TOOL_CALL_FORMATS = [
  /** `<tool name="NAME">{json}</tool>` */
  'tool_tag',
  /** `<tool_use>{"name": …, "input": {…}}</tool_use>` */
  'tool_use_tag',
  /** `<tool_call>{"name": …, "arguments": {…}}</tool_call>` */
  'tool_call_tag',
  /** The whole output is exactly one JSON object `{"tool": …, "arguments": {…}}`. */
  'bare_json',
  /** Prose with one fenced ```json block `{"tool": NAME, …args as sibling fields}`. */
  'fenced_json',
  /** `[name(key="value", n=1, flag=True)]`, Python-call style. */
  'bracket_call',
  /** Prose ending inside an open ```json block: the closing fence never came. */
  'open_fence',
  /** Mistral before tokenizer v11: `[TOOL_CALLS][{"name": …, "arguments": {…}}]`. */
  'mistral',
  /** Mistral tokenizer v13+ (Magistral, Ministral-3, Devstral-2): `[TOOL_CALLS]NAME[ARGS]{…}`. */
  'mistral_v13',
  /** Llama 3.x: `<|python_tag|>{"name": …, "parameters": {…}}`. */
  'llama_python_tag',
  /** Llama 3.x without the tag: the whole output is `{"name": …, "parameters": {…}}`. */
  'llama_json',
  /** DeepSeek V3 / R1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>`. */
  'deepseek',
  /** DeepSeek V3.1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`. */
  'deepseek_v31',
  /** IBM Granite 3.0: `<|tool_call|>[{"name": …, "arguments": {…}}]`. */
  'granite',
  /** functionary v3.1 (Llama 3.1 custom tools): `<function=NAME>{…}</function>`. */
  'functionary_v31',
  /** functionary v3.2: `>>>NAME\n{…}`. */
  'functionary_v32',
] as const;
export type TextToolCallFormat = (typeof TEXT_TOOL_CALL_FORMATS)[number];

/** What a Claude model plausibly drifts into: the Messages endpoint rotates over these. */
export const ANTHROPIC_DRIFT_FORMATS = [
  'tool_tag',
  'tool_use_tag',
  'tool_call_tag',
  'bare_json',
  'fenced_json',
  'bracket_call',
  'open_fence',
] as const satisfies readonly TextToolCallFormat[];

/** What open models write without a server-side tool parser, for the chat completions endpoint:
 * Hermes / Qwen (`tool_call_tag`), pythonic (`bracket_call`), and the family formats. */
export const OPEN_MODEL_TEXT_FORMATS = [
  'tool_call_tag',
  'bracket_call',
  'mistral',
  'mistral_v13',
  'llama_python_tag',
  'llama_json',
  'deepseek',
  'deepseek_v31',
  'granite',
  'functionary_v31',
  'functionary_v32',
] as const satisfies readonly TextToolCallFormat[];

/** Other names a request may pin a format by: vLLM's `--tool-call-parser` names for the same shape. */
export const TEXT_TOOL_CALL_FORMAT_ALIASES: Readonly<Record<string, TextToolCallFormat>> = {
  hermes: 'tool_call_tag',
  pythonic: 'bracket_call',
  llama3_json: 'llama_json',
  deepseek_v3: 'deepseek',
};

/** The format a name (or alias) stands for, or null when there is none. */
export function textToolCallFormatNamed(name: string): TextToolCallFormat | null {
  if ((TEXT_TOOL_CALL_FORMATS as readonly string[]).includes(name)) return name as TextToolCallFormat;
  return Object.hasOwn(TEXT_TOOL_CALL_FORMAT_ALIASES, name) ? (TEXT_TOOL_CALL_FORMAT_ALIASES[name] ?? null) : null;
}

/** The parse mode the fleet's parser (src/parsing) reports for each format with tool intent on;
 * `none` for `open_fence`, whose call never completes (the parser reports fence_only_stop). */
export const TEXT_FORMAT_PARSE_MODES: Readonly<Record<TextToolCallFormat, ParseMode>> = {
  tool_tag: 'tag',
  tool_use_tag: 'tool_use_tag',
  tool_call_tag: 'tool_call_tag',
  bare_json: 'json',
  fenced_json: 'fenced',
  bracket_call: 'bracket',
  open_fence: 'none',
  mistral: 'mistral',
  mistral_v13: 'mistral',
  llama_python_tag: 'python_tag',
  llama_json: 'json',
  deepseek: 'deepseek',
  deepseek_v31: 'deepseek',
  granite: 'granite',
  functionary_v31: 'function_tag',
  functionary_v32: 'functionary',
};

const DEEPSEEK_CALLS_BEGIN = '<｜tool▁calls▁begin｜>';
const DEEPSEEK_CALLS_END = '<｜tool▁calls▁end｜>';
const DEEPSEEK_CALL_BEGIN = '<｜tool▁call▁begin｜>';
const DEEPSEEK_CALL_END = '<｜tool▁call▁end｜>';
const DEEPSEEK_SEPARATOR = '<｜tool▁sep｜>';

/** The fence a stop sequence may cut off; `open_fence` then stops with stop_reason stop_sequence. */
export const CODE_FENCE = '```';

function pythonLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}: ${pythonLiteral(inner)}`).join(', ')}}`;
}

/** The text a model drifting into `format` would write for `call`. */
export function formatTextToolCall({ format, call }: { format: TextToolCallFormat; call: PlannedToolCall }): string {
  const inputJson = JSON.stringify(call.input);
  switch (format) {
    case 'tool_tag':
      return `<tool name="${call.name}">${inputJson}</tool>`;
    case 'tool_use_tag':
      return `<tool_use>${JSON.stringify({ name: call.name, input: call.input })}</tool_use>`;
    case 'tool_call_tag':
      return `<tool_call>${JSON.stringify({ name: call.name, arguments: call.input })}</tool_call>`;
    case 'bare_json':
      return JSON.stringify({ tool: call.name, arguments: call.input });
    case 'fenced_json':
      return `I'll call ${call.name} now.\n\n${CODE_FENCE}json\n${JSON.stringify({ tool: call.name, ...call.input }, null, 2)}\n${CODE_FENCE}`;
    case 'bracket_call': {
      const keywordArguments = Object.entries(call.input).map(([key, value]) => `${key}=${pythonLiteral(value)}`);
      return `[${call.name}(${keywordArguments.join(', ')})]`;
    }
    case 'open_fence':
      return `Calling ${call.name}:\n\n${CODE_FENCE}json\n${JSON.stringify({ tool: call.name, ...call.input }, null, 2)}`;
    // The family formats as their templates and tokenizers render them (mistral-common and vLLM
    // put a space after each `:` and `,`, which JSON.stringify leaves out; both are one JSON).
    case 'mistral':
      return `[TOOL_CALLS][${JSON.stringify({ name: call.name, arguments: call.input })}]`;
    case 'mistral_v13':
      return `[TOOL_CALLS]${call.name}[ARGS]${inputJson}`;
    case 'llama_python_tag':
      return `<|python_tag|>${JSON.stringify({ name: call.name, parameters: call.input })}`;
    case 'llama_json':
      return JSON.stringify({ name: call.name, parameters: call.input });
    case 'deepseek':
      return (
        `${DEEPSEEK_CALLS_BEGIN}${DEEPSEEK_CALL_BEGIN}function${DEEPSEEK_SEPARATOR}${call.name}\n` +
        `${CODE_FENCE}json\n${inputJson}\n${CODE_FENCE}${DEEPSEEK_CALL_END}${DEEPSEEK_CALLS_END}`
      );
    case 'deepseek_v31':
      return `${DEEPSEEK_CALLS_BEGIN}${DEEPSEEK_CALL_BEGIN}${call.name}${DEEPSEEK_SEPARATOR}${inputJson}${DEEPSEEK_CALL_END}${DEEPSEEK_CALLS_END}`;
    case 'granite':
      return `<|tool_call|>[${JSON.stringify({ name: call.name, arguments: call.input })}]`;
    case 'functionary_v31':
      return `<function=${call.name}>${inputJson}</function>`;
    case 'functionary_v32':
      return `>>>${call.name}\n${inputJson}`;
    default:
      return assertNever(format);
  }
}
