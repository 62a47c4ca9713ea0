// The ways a drifting model writes a tool call as text instead of a tool_use block. The fleet
// must recognise each of these; the simulator produces them so that recovery path is exercised.
import { assertNever } from '../domain/profile.js';
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
] as const;
export type TextToolCallFormat = (typeof TEXT_TOOL_CALL_FORMATS)[number];

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
    default:
      return assertNever(format);
  }
}
