// Validates a chat completions body the way the OpenAI API (and the OpenAI-compatible servers that
// copy it) does, and normalizes it. Field shapes follow the API reference ("Create chat
// completion") and openai-node's `ChatCompletionCreateParamsBase`
// (src/resources/chat/completions/completions.ts); the wording of each refusal is the OpenAI API's,
// as its 400 answers read. Fields the simulator does not act on (`temperature`, `seed`, `logprobs`,
// `response_format`, …) are range-checked where the reference gives a range and otherwise accepted,
// and unknown fields are accepted too: vLLM's request models allow extra fields (they log a warning),
// which is the server the endpoint stands for.
import type { ChatCompletionsRequest, ChatMessage, ChatTool, ChatToolCall, ChatToolChoice } from './chat-completions-request.js';
import { lookupChatModel } from './chat-model-catalog.js';
import { ChatRequestRefused } from './openai-error.js';

/** openai-node `FunctionDefinition.name`: "Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64." */
const FUNCTION_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
/** openai-node `ChatCompletionCreateParamsBase.stop`: "Up to 4 sequences where the API will stop generating further tokens." */
const MAXIMUM_STOP_SEQUENCES = 4;
const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refuse(message: string, param: string | null = null, code: string | null = null): never {
  throw new ChatRequestRefused({ message, param, code });
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a decimal';
  return `a ${typeof value}`;
}

function wrongType(param: string, expected: string, value: unknown): never {
  refuse(`Invalid type for '${param}': expected ${expected}, but got ${typeName(value)} instead.`, param, 'invalid_type');
}

function isAbsent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

/**
 * Validates and normalizes a parsed JSON body; throws ChatRequestRefused (400, or 404
 * `model_not_found`) with the error the real API answers.
 */
export function parseChatCompletionsRequest({ body }: { body: unknown }): ChatCompletionsRequest {
  if (!isRecord(body)) refuse('Invalid request body: expected a JSON object.');
  // The OpenAI API's wording for a body without a model.
  if (isAbsent(body.model) || body.model === '') refuse('you must provide a model parameter');
  if (typeof body.model !== 'string') wrongType('model', 'a string', body.model);
  if (isAbsent(body.messages)) refuse("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (!Array.isArray(body.messages)) wrongType('messages', 'an array', body.messages);
  if (body.messages.length === 0) {
    refuse("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'messages', 'empty_array');
  }

  const stream = optionalBoolean(body, 'stream') ?? false;
  if (!isAbsent(body.stream_options)) {
    // The OpenAI API refuses stream options on a request that does not stream.
    if (!stream) refuse("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
    if (!isRecord(body.stream_options)) wrongType('stream_options', 'an object', body.stream_options);
  }
  const includeUsage = isRecord(body.stream_options) ? (optionalBoolean(body.stream_options, 'include_usage', 'stream_options.') ?? false) : false;
  const parallelToolCalls = optionalBoolean(body, 'parallel_tool_calls') ?? true;
  checkNumber(body, 'temperature', 0, 2);
  checkNumber(body, 'top_p', 0, 1);
  checkNumber(body, 'frequency_penalty', -2, 2);
  checkNumber(body, 'presence_penalty', -2, 2);
  // One choice only: the simulator writes one answer per request (vLLM and OpenAI accept n > 1).
  if (!isAbsent(body.n) && body.n !== 1) refuse('The simulator answers one choice per request: n must be 1.', 'n', 'invalid_value');
  const maxTokens = optionalPositiveInteger(body, 'max_completion_tokens') ?? optionalPositiveInteger(body, 'max_tokens');
  const stop = parseStop(body.stop);
  const tools = parseTools(body.tools);
  const toolChoice = parseToolChoice(body.tool_choice, tools);
  const messages = body.messages.map((message, index) => parseMessage(message, index));
  checkToolCallPairing(messages);

  const model = lookupChatModel({ model: body.model });
  if (!model) {
    throw new ChatRequestRefused({
      status: 404,
      message: `The model \`${body.model}\` does not exist or you do not have access to it.`,
      code: 'model_not_found',
    });
  }
  // OpenAI's wording for a limit above the model's output cap (an open model's is its window,
  // checked against the prompt once it is counted, build-messages-request.ts).
  if (maxTokens !== null && !model.openWeights && maxTokens > model.maxOutputTokens) {
    const param = body.max_completion_tokens === undefined ? 'max_tokens' : 'max_completion_tokens';
    refuse(
      `${param} is too large: ${maxTokens}. This model supports at most ${model.maxOutputTokens} completion tokens, whereas you provided ${maxTokens}.`,
      param,
      'invalid_value',
    );
  }
  return { model, messages, tools, toolChoice, parallelToolCalls, maxTokens, stop, stream, includeUsage };
}

function optionalBoolean(record: Record<string, unknown>, field: string, prefix = ''): boolean | undefined {
  const value = record[field];
  if (isAbsent(value)) return undefined;
  if (typeof value !== 'boolean') wrongType(`${prefix}${field}`, 'a boolean', value);
  return value;
}

function optionalPositiveInteger(record: Record<string, unknown>, field: string): number | null {
  const value = record[field];
  if (isAbsent(value)) return null;
  if (typeof value !== 'number' || !Number.isInteger(value)) wrongType(field, 'an integer', value);
  if (value < 1) {
    refuse(`Invalid '${field}': integer below minimum value. Expected a value >= 1, but got ${value} instead.`, field, 'integer_below_min_value');
  }
  return value;
}

function checkNumber(record: Record<string, unknown>, field: string, minimum: number, maximum: number): void {
  const value = record[field];
  if (isAbsent(value)) return;
  if (typeof value !== 'number') wrongType(field, 'a number', value);
  if (value < minimum) {
    refuse(`Invalid '${field}': decimal below minimum value. Expected a value >= ${minimum}, but got ${value} instead.`, field, 'decimal_below_min_value');
  }
  if (value > maximum) {
    refuse(`Invalid '${field}': decimal above maximum value. Expected a value <= ${maximum}, but got ${value} instead.`, field, 'decimal_above_max_value');
  }
}

function parseStop(stop: unknown): string[] {
  if (isAbsent(stop)) return [];
  if (typeof stop === 'string') return [stop];
  if (!Array.isArray(stop)) wrongType('stop', 'a string or an array of strings', stop);
  if (stop.length > MAXIMUM_STOP_SEQUENCES) {
    refuse(
      `Invalid 'stop': array too long. Expected an array with maximum length ${MAXIMUM_STOP_SEQUENCES}, but got an array with length ${stop.length} instead.`,
      'stop',
      'array_above_max_length',
    );
  }
  return stop.map((sequence, index) => {
    if (typeof sequence !== 'string') wrongType(`stop[${index}]`, 'a string', sequence);
    return sequence;
  });
}

function parseTools(tools: unknown): ChatTool[] {
  if (isAbsent(tools)) return [];
  if (!Array.isArray(tools)) wrongType('tools', 'an array', tools);
  const names = new Set<string>();
  return tools.map((tool, index) => {
    const path = `tools[${index}]`;
    if (!isRecord(tool)) wrongType(path, 'an object', tool);
    // openai-node `ChatCompletionFunctionTool`: {type: 'function', function: FunctionDefinition}.
    if (tool.type !== 'function') {
      refuse(`Invalid value: '${String(tool.type)}'. Supported values are: 'function' and 'custom'.`, `${path}.type`, 'invalid_value');
    }
    if (isAbsent(tool.function)) refuse(`Missing required parameter: '${path}.function'.`, `${path}.function`, 'missing_required_parameter');
    if (!isRecord(tool.function)) wrongType(`${path}.function`, 'an object', tool.function);
    const definition = tool.function;
    if (isAbsent(definition.name)) refuse(`Missing required parameter: '${path}.function.name'.`, `${path}.function.name`, 'missing_required_parameter');
    if (typeof definition.name !== 'string') wrongType(`${path}.function.name`, 'a string', definition.name);
    if (!FUNCTION_NAME_PATTERN.test(definition.name)) {
      refuse(
        `Invalid '${path}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        `${path}.function.name`,
        'invalid_value',
      );
    }
    if (names.has(definition.name)) refuse(`Duplicate function name '${definition.name}' in 'tools'.`, 'tools', 'invalid_value');
    names.add(definition.name);
    if (!isAbsent(definition.description) && typeof definition.description !== 'string') {
      wrongType(`${path}.function.description`, 'a string', definition.description);
    }
    // openai-node `FunctionDefinition.parameters`: "Omitting parameters defines a function with an
    // empty parameter list"; a schema of another type is refused in the API's words.
    const parameters = isAbsent(definition.parameters) ? { type: 'object', properties: {} } : definition.parameters;
    if (!isRecord(parameters)) wrongType(`${path}.function.parameters`, 'an object', parameters);
    if (parameters.type !== 'object') {
      refuse(
        `Invalid schema for function '${definition.name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${String(parameters.type)}"'.`,
        `${path}.function.parameters`,
        'invalid_function_parameters',
      );
    }
    return { name: definition.name, description: typeof definition.description === 'string' ? definition.description : undefined, parameters };
  });
}

function parseToolChoice(toolChoice: unknown, tools: readonly ChatTool[]): ChatToolChoice {
  if (isAbsent(toolChoice)) return { type: 'auto' };
  // OpenAI: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."
  if (tools.length === 0 && toolChoice !== 'none') {
    refuse("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", 'tool_choice');
  }
  if (typeof toolChoice === 'string') {
    if (toolChoice === 'auto' || toolChoice === 'none' || toolChoice === 'required') return { type: toolChoice };
    refuse(`Invalid value: '${toolChoice}'. Supported values are: 'none', 'auto', and 'required'.`, 'tool_choice', 'invalid_value');
  }
  if (!isRecord(toolChoice)) wrongType('tool_choice', 'a string or an object', toolChoice);
  // openai-node `ChatCompletionNamedToolChoice`: {type: 'function', function: {name}}.
  if (toolChoice.type !== 'function') {
    refuse(`Invalid value: '${String(toolChoice.type)}'. Supported values are: 'function' and 'custom'.`, 'tool_choice.type', 'invalid_value');
  }
  const name = isRecord(toolChoice.function) ? toolChoice.function.name : undefined;
  if (typeof name !== 'string') refuse("Missing required parameter: 'tool_choice.function.name'.", 'tool_choice.function.name', 'missing_required_parameter');
  // vLLM's wording (vllm/entrypoints/openai/protocol.py, ChatCompletionRequest.check_tool_usage).
  if (!tools.some((tool) => tool.name === name)) {
    refuse('The tool specified in `tool_choice` does not match any of the specified `tools`', 'tool_choice', 'invalid_value');
  }
  return { type: 'function', name };
}

/** The text of a `content` that is a string or an array of content parts (text parts kept). */
function contentText(content: unknown, path: string, required: boolean): string {
  if (isAbsent(content)) {
    if (required) refuse(`Missing required parameter: '${path}'.`, path, 'missing_required_parameter');
    return '';
  }
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) wrongType(path, 'a string or an array of content parts', content);
  return content
    .map((part, index) => {
      if (!isRecord(part)) wrongType(`${path}[${index}]`, 'an object', part);
      if (part.type === 'text') {
        if (typeof part.text !== 'string') wrongType(`${path}[${index}].text`, 'a string', part.text);
        return part.text;
      }
      // Images, audio and files stand for nothing the builder reads; a refusal is a text part too.
      return part.type === 'refusal' && typeof part.refusal === 'string' ? part.refusal : '';
    })
    .join('');
}

function parseMessage(message: unknown, index: number): ChatMessage {
  const path = `messages[${index}]`;
  if (!isRecord(message)) wrongType(path, 'an object', message);
  const role = message.role;
  if (isAbsent(role)) refuse(`Missing required parameter: '${path}.role'.`, `${path}.role`, 'missing_required_parameter');
  if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) {
    refuse(
      `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
      `${path}.role`,
      'invalid_value',
    );
  }
  switch (role) {
    case 'system':
    case 'developer':
      return { role: 'system', text: contentText(message.content, `${path}.content`, true) };
    case 'user':
      return { role: 'user', text: contentText(message.content, `${path}.content`, true) };
    case 'tool': {
      if (isAbsent(message.tool_call_id)) {
        refuse(`Missing required parameter: '${path}.tool_call_id'.`, `${path}.tool_call_id`, 'missing_required_parameter');
      }
      if (typeof message.tool_call_id !== 'string') wrongType(`${path}.tool_call_id`, 'a string', message.tool_call_id);
      return { role: 'tool', toolCallId: message.tool_call_id, text: contentText(message.content, `${path}.content`, true) };
    }
    default: {
      const toolCalls = parseToolCalls(message.tool_calls, path);
      // openai-node `ChatCompletionAssistantMessageParam.content`: "Required unless `tool_calls` or `function_call` is specified."
      return { role: 'assistant', text: contentText(message.content, `${path}.content`, toolCalls.length === 0), toolCalls };
    }
  }
}

function parseToolCalls(toolCalls: unknown, messagePath: string): ChatToolCall[] {
  if (isAbsent(toolCalls)) return [];
  const path = `${messagePath}.tool_calls`;
  if (!Array.isArray(toolCalls)) wrongType(path, 'an array', toolCalls);
  return toolCalls.map((call, index) => {
    const callPath = `${path}[${index}]`;
    if (!isRecord(call)) wrongType(callPath, 'an object', call);
    if (typeof call.id !== 'string') {
      if (isAbsent(call.id)) refuse(`Missing required parameter: '${callPath}.id'.`, `${callPath}.id`, 'missing_required_parameter');
      wrongType(`${callPath}.id`, 'a string', call.id);
    }
    if (call.type !== 'function') {
      refuse(`Invalid value: '${String(call.type)}'. Supported values are: 'function' and 'custom'.`, `${callPath}.type`, 'invalid_value');
    }
    if (!isRecord(call.function)) {
      if (isAbsent(call.function)) refuse(`Missing required parameter: '${callPath}.function'.`, `${callPath}.function`, 'missing_required_parameter');
      wrongType(`${callPath}.function`, 'an object', call.function);
    }
    const { name, arguments: argumentsText } = call.function;
    if (typeof name !== 'string') wrongType(`${callPath}.function.name`, 'a string', name);
    // openai-node `ChatCompletionMessageFunctionToolCall.Function.arguments` is the JSON *text*.
    if (typeof argumentsText !== 'string') wrongType(`${callPath}.function.arguments`, 'a string', argumentsText);
    return { id: call.id, name, arguments: argumentsText };
  });
}

/**
 * The OpenAI API's tool-message rules, in its words: a `tool` message answers a `tool_calls` id of
 * the assistant message just before it (tool messages in between allowed), and every such id is
 * answered before any other message comes.
 */
function checkToolCallPairing(messages: readonly ChatMessage[]): void {
  let open: { index: number; unanswered: Set<string>; ids: Set<string> } | null = null;
  const failUnanswered = (pending: { index: number; unanswered: Set<string> }): never =>
    refuse(
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
        `The following tool_call_ids did not have response messages: ${[...pending.unanswered].join(', ')}`,
      `messages.[${pending.index}].role`,
    );
  for (const [index, message] of messages.entries()) {
    if (message.role === 'tool') {
      if (!open) {
        refuse("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${index}].role`);
      }
      if (!open.ids.has(message.toolCallId)) {
        refuse(
          `Invalid parameter: 'tool_call_id' of '${message.toolCallId}' not found in 'tool_calls' of previous message.`,
          `messages.[${index}].tool_call_id`,
        );
      }
      open.unanswered.delete(message.toolCallId);
      continue;
    }
    if (open && open.unanswered.size > 0) failUnanswered(open);
    open =
      message.role === 'assistant' && message.toolCalls.length > 0
        ? { index, unanswered: new Set(message.toolCalls.map((call) => call.id)), ids: new Set(message.toolCalls.map((call) => call.id)) }
        : null;
  }
  if (open && open.unanswered.size > 0) failUnanswered(open);
}
