// The providers of one worker process, each built once, on first use, from its settings
// (provider-settings.ts): a run names its provider (the run record's `provider`), and every turn of
// it is called through that one instance. Every declaration is checked when the registry is made
// and the fleet's default provider is built then, so a bad configuration stops the process at boot.
import type Anthropic from '@anthropic-ai/sdk';
import type { Config } from '../config.js';
import { createModelClient } from '../model/model-client.js';
import { createAnthropicProvider } from './anthropic-provider.js';
import { bedrockModelId, createBedrockClient } from './bedrock-client.js';
import type { ModelProvider } from './model-provider.js';
import { createOpenAiCompatibleProvider } from './openai-compatible-provider.js';
import { providerLimiterIdentity } from './provider-limiter-identity.js';
import { ProviderConfigurationError, readProviderSettings, type ProviderSettings } from './provider-settings.js';
import { createVertexClient, vertexModelId } from './vertex-client.js';

export { ProviderConfigurationError };

export interface ProviderRegistry {
  /** The provider of this name; throws ProviderConfigurationError when none is configured. */
  get(name: string): ModelProvider;
  has(name: string): boolean;
  /** BUILDFLEET_PROVIDER. */
  readonly defaultName: string;
}

type RegistryConfig = Pick<
  Config,
  | 'BUILDFLEET_PROVIDERS'
  | 'BUILDFLEET_PROVIDER'
  | 'ANTHROPIC_API_KEY'
  | 'ANTHROPIC_BASE_URL'
  | 'BUILDFLEET_SIMULATOR_URL'
  | 'BUILDFLEET_MODEL_CONNECT_TIMEOUT_MS'
>;

export function createProviderRegistry({
  config,
  anthropicClient,
}: {
  config: RegistryConfig;
  /** The implicit `anthropic` provider's client, when the caller built its own (tests that bend
   * its fetch); default: createModelClient(config). */
  anthropicClient?: Anthropic;
}): ProviderRegistry {
  const settings = readProviderSettings(config);
  const built = new Map<string, ModelProvider>();
  const connectTimeoutMs = config.BUILDFLEET_MODEL_CONNECT_TIMEOUT_MS;
  const build = (setting: ProviderSettings): ModelProvider => {
    const limiterIdentity = providerLimiterIdentity(setting, { ...config, clientBaseUrl: anthropicClient?.baseURL });
    switch (setting.kind) {
      case 'anthropic': {
        const client = setting.implicit
          ? (anthropicClient ?? createModelClient(config))
          : createModelClient({
              ANTHROPIC_API_KEY: setting.options.apiKey,
              ANTHROPIC_BASE_URL: setting.options.baseUrl,
              BUILDFLEET_SIMULATOR_URL: undefined,
              BUILDFLEET_MODEL_CONNECT_TIMEOUT_MS: connectTimeoutMs,
            });
        return createAnthropicProvider({ name: setting.name, kind: 'anthropic', client, limiterIdentity, counter: client });
      }
      case 'bedrock': {
        const options = setting.options;
        return createAnthropicProvider({
          name: setting.name,
          kind: 'bedrock',
          limiterIdentity,
          client: createBedrockClient(options, { connectTimeoutMs }),
          modelId: (model) => bedrockModelId(options, model),
        });
      }
      case 'vertex': {
        const options = setting.options;
        return createAnthropicProvider({
          name: setting.name,
          kind: 'vertex',
          limiterIdentity,
          client: createVertexClient(options, { connectTimeoutMs }),
          modelId: (model) => vertexModelId(options, model),
        });
      }
      case 'openai_compatible':
        return createOpenAiCompatibleProvider({ name: setting.name, options: setting.options, limiterIdentity, connectTimeoutMs });
      default: {
        const unknownSetting: never = setting;
        throw new ProviderConfigurationError(`No provider kind for ${JSON.stringify(unknownSetting)}`);
      }
    }
  };
  const registry: ProviderRegistry = {
    defaultName: config.BUILDFLEET_PROVIDER,
    has: (name) => settings.has(name),
    get(name) {
      const existing = built.get(name);
      if (existing) return existing;
      const setting = settings.get(name);
      if (!setting)
        throw new ProviderConfigurationError(
          `No provider named ${JSON.stringify(name)} is configured (BUILDFLEET_PROVIDERS declares: ${[...settings.keys()].join(', ')}).`,
        );
      const provider = build(setting);
      built.set(name, provider);
      return provider;
    },
  };
  registry.get(registry.defaultName);
  return registry;
}
