// How a tool call reached the runtime, in the one list the parser, the turn, the tool job and the
// metrics share. `native` is the API's own tool_use block; the others are the text formats the
// parser recovers (src/parsing/README.md).

/** The modes a found tool call can have. */
export const PARSE_MODES = [
  'native',
  'tag',
  'tool_use_tag',
  'tool_call_tag',
  'json',
  'fenced',
  'bracket',
  // Open-model chat-template formats (served without a server-side tool parser).
  'mistral',
  'python_tag',
  'deepseek',
  'granite',
  'function_tag',
  'functionary',
] as const;

/** A found call's mode, or `none` when no single candidate was found. */
export type ParseMode = (typeof PARSE_MODES)[number] | 'none';
