// The Anthropic family behind the provider interface: the Messages API itself, Claude on Bedrock
// and Claude on Vertex. All three SDK clients stream the same Messages events (the Bedrock and
// Vertex SDKs rewrite the path and auth and turn their transports back into Messages SSE), so one
// callModel serves them; only the model id differs (Bedrock and Vertex name models their own way:
// bedrock-client.ts bedrockModelId, vertex-client.ts vertexModelId).
import type Anthropic from '@anthropic-ai/sdk';
import { callModel, countPromptTokens, describeModelError, type AnthropicFamilyClient } from '../model/model-client.js';
import { describeBedrockError } from './describe-bedrock-error.js';
import type { ModelProvider } from './model-provider.js';

export type AnthropicFamilyKind = 'anthropic' | 'bedrock' | 'vertex';

/** A provider over an Anthropic-family client; `modelId` maps the run's model to the id sent. */
export function createAnthropicProvider({
  name,
  kind,
  client,
  limiterIdentity,
  modelId = (fleetModel) => fleetModel,
  counter,
}: {
  name: string;
  kind: AnthropicFamilyKind;
  client: AnthropicFamilyClient;
  /** Whose limits its calls count against (provider-limiter-identity.ts). */
  limiterIdentity: string;
  modelId?: (fleetModel: string) => string;
  /** The client that answers count_tokens, where the provider has the endpoint: the Messages API
   * does (docs build-with-claude/token-counting); the Bedrock and Vertex clients are not given one,
   * so their estimates stay on the documented ratios. */
  counter?: Pick<Anthropic, 'messages'>;
}): ModelProvider {
  return {
    name,
    kind,
    limiterIdentity,
    call: (request, options) => callModel(client, { ...request, model: modelId(request.model) }, options),
    ...(counter ? { countTokens: (request) => countPromptTokens(counter, { ...request, model: modelId(request.model) }) } : {}),
    // The Bedrock and Vertex SDKs throw the base SDK's error classes (they extend BaseAnthropic and
    // reuse its APIError hierarchy). Vertex answers the model's errors in the Anthropic envelope;
    // Bedrock names its own exceptions, read by describeBedrockError.
    describeError: kind === 'bedrock' ? describeBedrockError : describeModelError,
  };
}
