// Whether the simulated server runs a tool parser, and what that makes of a request's tool_choice.
// Header `x-buildfleet-tool-parser` is the server's configuration, not the request's: `on` (default)
// stands for `vllm serve … --enable-auto-tool-choice --tool-call-parser <the family's parser>`,
// `none` for `vllm serve` without those flags. Without a parser vLLM (serving_chat.py,
// create_chat_completion) refuses `tool_choice: "auto"` with 400 `"auto" tool choice requires
// --enable-auto-tool-choice and --tool-call-parser to be set`, and an absent tool_choice with tools
// is `auto` (protocol.py ChatCompletionRequest.check_tool_usage: "if "tool_choice" is not specified
// but tools are provided, default to "auto""), so it is refused too. `none` is accepted and the
// chat template still renders the tools ("When tools are specified in the request, vLLM includes
// tool definitions in the prompt by default, regardless of the tool_choice setting", docs.vllm.ai
// features/tool_calling, "None Function Calling"): the model may still decide to call one, and with
// nothing to parse it the call is `content` text in the family's format. `required` and a named
// tool go through structured outputs, which need no parser ("Named Function Calling", "Required
// Function Calling"): native tool_calls. (vLLM skips the `auto` check for its Mistral tokenizer
// and for gpt-oss; the simulator refuses `auto` for every model.)
import type { ChatToolChoice } from './chat-completions-request.js';
import { ChatRequestRefused } from './openai-error.js';

export const HEADER_TOOL_PARSER = 'x-buildfleet-tool-parser';
export const TOOL_PARSER_SETTINGS = ['on', 'none'] as const;
export type ToolParserSetting = (typeof TOOL_PARSER_SETTINGS)[number];

/** vLLM's wording, verbatim (serving_chat.py). */
export const AUTO_TOOL_CHOICE_WITHOUT_PARSER = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set';

/** How the model sees the turn: the tool_choice it decides under, and whether every call it makes
 * is written as text (no parser turns it into tool_calls). */
export interface ToolParserTurn {
  toolChoice: ChatToolChoice;
  callsAsText: boolean;
}

/** Reads the header; an unknown value is the caller's 400, as the other x-buildfleet-* headers are. */
export function parseToolParserHeader(value: string | undefined): ToolParserSetting {
  const setting = value?.trim().toLowerCase() || 'on';
  if ((TOOL_PARSER_SETTINGS as readonly string[]).includes(setting)) return setting as ToolParserSetting;
  throw new ChatRequestRefused({ message: `${HEADER_TOOL_PARSER}: expected one of ${TOOL_PARSER_SETTINGS.join(', ')}` });
}

/** The turn as a server with (`on`) or without (`none`) a tool parser takes it; throws vLLM's 400
 * for `auto` without a parser. */
export function toolParserTurn({
  setting,
  toolChoice,
  toolCount,
}: {
  setting: ToolParserSetting;
  toolChoice: ChatToolChoice;
  toolCount: number;
}): ToolParserTurn {
  if (setting === 'on' || toolCount === 0) return { toolChoice, callsAsText: false };
  switch (toolChoice.type) {
    case 'auto':
      // vLLM's create_error_response: 400, type BadRequestError.
      throw new ChatRequestRefused({ message: AUTO_TOOL_CHOICE_WITHOUT_PARSER, type: 'BadRequestError' });
    case 'none':
      // The tools are in the prompt, so the model chooses as under auto; no parser reads its call.
      return { toolChoice: { type: 'auto' }, callsAsText: true };
    default:
      return { toolChoice, callsAsText: false };
  }
}
