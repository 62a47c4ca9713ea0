// Which fields the Messages API accepts, where. The real API validates bodies strictly: a field it
// does not know is a 400 invalid_request_error "<path>: Extra inputs are not permitted" (seen in
// real answers, e.g. "context_management: Extra inputs are not permitted" without its beta,
// "messages.65.content.1.tool_use.text: …", "messages.1.content.0.thinking.cache_control: …",
// "tools.3.custom.input_examples: …"). The lists mirror the SDK's param types
// (@anthropic-ai/sdk src/resources/messages/messages.ts: MessageCreateParamsBase, TextBlockParam,
// ToolUseBlockParam, ToolResultBlockParam, ThinkingBlockParam, RedactedThinkingBlockParam, Tool,
// ToolChoice*, Metadata, CacheControlEphemeral).

/** Top-level fields of `POST /v1/messages` (MessageCreateParamsBase). */
export const MESSAGES_REQUEST_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'max_tokens',
  'cache_control',
  'container',
  'diagnostics',
  'inference_geo',
  'metadata',
  'output_config',
  'service_tier',
  'speed',
  'stop_sequences',
  'stream',
  'system',
  'temperature',
  'thinking',
  'tool_choice',
  'tools',
  'top_k',
  'top_p',
  'user_profile_id',
  'workspace_id',
]);

/** Top-level fields of `POST /v1/messages/count_tokens` (SDK MessageCountTokensParams, minus the
 * `user_profile_id` / `workspace_id` it sends as headers): no `max_tokens`, `stream`, `stop_sequences`
 * or sampling, which would be extra inputs there. */
export const COUNT_TOKENS_REQUEST_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'cache_control',
  'output_config',
  'speed',
  'system',
  'thinking',
  'tool_choice',
  'tools',
]);

/**
 * Fields only the beta Messages API takes (src/resources/beta/messages/messages.ts); the SDK's
 * beta client sends them with an `anthropic-beta` header, and without one they are extra inputs.
 */
export const BETA_MESSAGES_REQUEST_FIELDS: ReadonlySet<string> = new Set([
  'compaction',
  'context_management',
  'fallback_credit_token',
  'fallbacks',
  'mcp_servers',
  'output_format',
]);

/** Fields of the content blocks the simulator reads, by block type. */
export const CONTENT_BLOCK_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  text: new Set(['type', 'text', 'cache_control', 'citations']),
  tool_use: new Set(['type', 'id', 'name', 'input', 'cache_control', 'caller', 'toolset_name']),
  tool_result: new Set(['type', 'tool_use_id', 'content', 'is_error', 'cache_control', 'toolset_name']),
  // Thinking blocks take no cache_control: they are cached only as part of the turn around them.
  thinking: new Set(['type', 'thinking', 'signature']),
  redacted_thinking: new Set(['type', 'data']),
  // Mid-conversation tool changes (parse-system-message.ts).
  tool_addition: new Set(['type', 'tool', 'cache_control']),
  tool_removal: new Set(['type', 'tool', 'cache_control']),
};

/** Fields of a custom tool definition (Tool). */
export const CUSTOM_TOOL_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'description',
  'input_schema',
  'cache_control',
  'type',
  'strict',
  'defer_loading',
  'eager_input_streaming',
  'input_examples',
  'allowed_callers',
]);

/** Fields of `tool_choice`, any type. */
export const TOOL_CHOICE_FIELDS: ReadonlySet<string> = new Set(['type', 'name', 'disable_parallel_tool_use']);

/** Fields of `metadata`. */
export const METADATA_FIELDS: ReadonlySet<string> = new Set(['user_id']);

/** Fields of a `cache_control` object. */
export const CACHE_CONTROL_FIELDS: ReadonlySet<string> = new Set(['type', 'ttl']);

/** The first key of `record` not in `allowed`, in the body's order (the real API names one). */
export function findExtraField({ record, allowed }: { record: Record<string, unknown>; allowed: ReadonlySet<string> }): string | undefined {
  return Object.keys(record).find((key) => !allowed.has(key));
}

/** The real API's message for a field it does not know. */
export function extraFieldMessage({ path }: { path: string }): string {
  return `${path}: Extra inputs are not permitted`;
}
