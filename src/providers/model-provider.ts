// The one interface the model worker calls a model through (issue #19): Anthropic, Claude on
// Bedrock and on Vertex, and OpenAI-compatible chat completions (vLLM, llama.cpp's server, Ollama,
// SGLang). A provider maps its wire format to and from the fleet's canonical, Anthropic-shaped
// request and answer (src/domain/model-message.ts), so the turn, the transcript and the decisions
// stay provider-neutral. docs/providers.md documents each provider and its mapping tables.
import type { ProviderKind } from '../domain/provider-declarations.js';
import type { ModelCallFailure } from '../model/classify-model-error.js';
import type { ModelCallOptions, ModelCallResult, ModelRequest, TokenCountRequest } from '../model/model-client.js';

export type { ModelCallOptions, ModelCallResult, ModelRequest, ProviderKind, TokenCountRequest };

/**
 * `gen_ai.provider.name` of each kind, from the OpenTelemetry GenAI semantic conventions'
 * well-known values (gen-ai registry, `gen_ai.provider.name`: `anthropic`, `aws.bedrock`,
 * `gcp.vertex_ai`, `openai`). An OpenAI-compatible server is not OpenAI, but the conventions name
 * the provider by the API it speaks when no better value exists, and `openai` is that API.
 */
export const GEN_AI_PROVIDER_NAMES: Readonly<Record<ProviderKind, string>> = Object.freeze({
  anthropic: 'anthropic',
  bedrock: 'aws.bedrock',
  vertex: 'gcp.vertex_ai',
  openai_compatible: 'openai',
});

export interface ModelProvider {
  /** The configured name (BUILDFLEET_PROVIDERS key, or `anthropic` for the implicit one). */
  readonly name: string;
  readonly kind: ProviderKind;
  /** Whose rate limits its calls count against (model-rate-limiter.ts limiterIdentity of its key or
   * endpoint): with the name, the admission limiter's buckets of its calls (docs/admission.md). */
  readonly limiterIdentity: string;
  /** One streamed call: the canonical answer, or a throw that describeError reads. An error thrown
   * after the answer began to stream carries what it cost (model-client.ts paidUsageOfFailedCall). */
  call(request: ModelRequest, options: ModelCallOptions): Promise<ModelCallResult>;
  /** The prompt tokens of a request as the provider's own tokenizer counts them, where the provider
   * offers it (the Messages API's count_tokens); absent where it does not. Used now and then to
   * calibrate the fleet's estimates (src/model/token-calibration.ts), never before every call. */
  countTokens?(request: TokenCountRequest): Promise<number>;
  /** What a thrown error was, in the shape classifyModelError takes. */
  describeError(error: unknown): ModelCallFailure;
}
