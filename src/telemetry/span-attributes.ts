// Span and attribute names, following the OpenTelemetry GenAI semantic conventions where they
// exist (gen_ai.*), and buildfleet.* for the rest.
export const SPAN_ATTRIBUTES = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  /** The fleet's name of the provider (BUILDFLEET_PROVIDERS key): two of one kind are told apart. */
  providerConfigName: 'buildfleet.provider.name',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  usageCacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  usageCacheCreationInputTokens: 'gen_ai.usage.cache_creation.input_tokens',
  /** The API's `request-id` response header: what Anthropic support asks for about one call. */
  requestId: 'buildfleet.model.request_id',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  runId: 'buildfleet.run.id',
  turn: 'buildfleet.turn',
  phase: 'buildfleet.phase',
  toolCount: 'buildfleet.request.tool_count',
  parseMode: 'buildfleet.tool.parse_mode',
  jobId: 'messaging.message.id',
  queue: 'messaging.destination.name',
  attempt: 'buildfleet.job.attempt',
} as const;

export const SPAN_NAMES = {
  runCreate: 'create_run',
  modelTurn: 'model_turn',
  chat: (model: string) => `chat ${model}`,
  executeTool: (tool: string) => `execute_tool ${tool}`,
} as const;
