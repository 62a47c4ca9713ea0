// The model client: the real Anthropic SDK, pointed at Claude when a key is set and at the
// simulator otherwise. The SDK's own retries are off so every retry goes through the queue.
import Anthropic from '@anthropic-ai/sdk';
import type { Config } from '../config.js';
import type { ModelCallFailure } from './classify-model-error.js';
import type { AssistantBlock, ModelResponse, TranscriptMessage } from './model-message.js';
import type { ToolChoice } from '../agent/tool-choice-policy.js';

export class ModelConfigurationError extends Error {
  readonly code = 'model_not_configured';
}

export function createModelClient(config: Config): Anthropic {
  const baseURL = config.ANTHROPIC_BASE_URL ?? (config.ANTHROPIC_API_KEY ? undefined : config.BUILDFLEET_SIMULATOR_URL);
  if (!config.ANTHROPIC_API_KEY && !baseURL) {
    throw new ModelConfigurationError(
      'No model configured: set ANTHROPIC_API_KEY to call Claude, or ANTHROPIC_BASE_URL (or BUILDFLEET_SIMULATOR_URL) to a simulator (`buildfleet sim`).',
    );
  }
  return new Anthropic({
    apiKey: config.ANTHROPIC_API_KEY ?? 'simulator',
    ...(baseURL ? { baseURL } : {}),
    maxRetries: 0,
    timeout: config.BUILDFLEET_MODEL_TIMEOUT_MS,
  });
}

export interface ModelRequest {
  model: string;
  maxTokens: number;
  system: string;
  messages: TranscriptMessage[];
  tools: Array<{ name: string; description: string; input_schema: unknown }>;
  toolChoice: ToolChoice;
  stopSequences: string[];
  headers: Record<string, string>;
  signal?: AbortSignal;
}

export async function callModel(client: Anthropic, request: ModelRequest): Promise<ModelResponse> {
  const response = await client.messages.create(
    {
      model: request.model,
      max_tokens: request.maxTokens,
      system: request.system,
      messages: request.messages as Anthropic.MessageParam[],
      tools: request.tools as Anthropic.Tool[],
      tool_choice: request.toolChoice,
      stop_sequences: request.stopSequences,
    },
    { headers: request.headers, ...(request.signal ? { signal: request.signal } : {}) },
  );
  return {
    id: response.id,
    model: response.model,
    content: response.content.map((block) =>
      block.type === 'text'
        ? { type: 'text', text: block.text }
        : block.type === 'tool_use'
          ? { type: 'tool_use', id: block.id, name: block.name, input: block.input }
          : (block as unknown as AssistantBlock),
    ),
    stop_reason: response.stop_reason,
    stop_sequence: response.stop_sequence,
    usage: { input_tokens: response.usage.input_tokens, output_tokens: response.usage.output_tokens },
  };
}

/** Reads what the SDK's error carries into the shape classifyModelError takes. */
export function describeModelError(error: unknown): ModelCallFailure {
  if (error instanceof Anthropic.APIConnectionError) {
    return { connectionFailure: true, message: error.message };
  }
  if (error instanceof Anthropic.APIError) {
    const body = (error.error ?? {}) as { error?: { type?: string; message?: string; details?: { error_code?: string } } };
    return {
      status: error.status,
      headers: error.headers as Headers | undefined,
      errorType: body.error?.type,
      errorCode: body.error?.details?.error_code,
      message: body.error?.message ?? error.message,
    };
  }
  return { connectionFailure: true, message: error instanceof Error ? error.message : String(error) };
}
