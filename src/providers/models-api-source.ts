// Which provider's Models API the fleet's catalog is checked against: the Anthropic API has one
// (`GET /v1/models`, the SDK's `client.models`); Claude on Bedrock and on Vertex do not through
// their SDKs (AnthropicBedrock and AnthropicVertex carry no `models` resource), and an
// OpenAI-compatible server's `/v1/models` lists names without limits or capabilities. The fleet's
// default provider is checked when it is an Anthropic one, else the first Anthropic provider
// declared; a fleet with none has no check.
import type Anthropic from '@anthropic-ai/sdk';
import type { Config } from '../config.js';
import { createModelClient, ModelConfigurationError } from '../model/model-client.js';
import type { ModelsApiSource } from '../model/models-api-check.js';
import { readProviderSettings, type ProviderSettings } from './provider-settings.js';

/** The Models API of an Anthropic client. */
export function modelsApiOfClient({ provider, client }: { provider: string; client: Pick<Anthropic, 'models'> }): ModelsApiSource {
  return { provider, list: (params) => client.models.list(params) };
}

/** The Models API the catalog is checked against, or null when no provider of the fleet has one. */
export function modelsApiSourceOf({
  config,
}: {
  config: Pick<
    Config,
    | 'BUILDFLEET_PROVIDERS'
    | 'BUILDFLEET_PROVIDER'
    | 'ANTHROPIC_API_KEY'
    | 'ANTHROPIC_BASE_URL'
    | 'BUILDFLEET_SIMULATOR_URL'
    | 'BUILDFLEET_MODEL_CONNECT_TIMEOUT_MS'
  >;
}): ModelsApiSource | null {
  const settings = readProviderSettings(config);
  const anthropic = [...settings.values()].filter((setting): setting is Extract<ProviderSettings, { kind: 'anthropic' }> => setting.kind === 'anthropic');
  const chosen = anthropic.find((setting) => setting.name === config.BUILDFLEET_PROVIDER) ?? anthropic.find((setting) => !setting.implicit);
  if (!chosen) return null;
  try {
    const client = chosen.implicit
      ? createModelClient(config)
      : createModelClient({
          ANTHROPIC_API_KEY: chosen.options.apiKey,
          ANTHROPIC_BASE_URL: chosen.options.baseUrl,
          BUILDFLEET_SIMULATOR_URL: undefined,
          BUILDFLEET_MODEL_CONNECT_TIMEOUT_MS: config.BUILDFLEET_MODEL_CONNECT_TIMEOUT_MS,
        });
    return modelsApiOfClient({ provider: chosen.name, client });
  } catch (error) {
    // No key and no endpoint (an API process of a fleet whose workers call another provider).
    if (error instanceof ModelConfigurationError) return null;
    throw error;
  }
}
