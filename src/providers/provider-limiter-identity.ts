// Whose rate limits a provider's calls count against, as the admission limiter names it
// (src/model/model-rate-limiter.ts limiterIdentity: a hash, never the secret): with the provider's
// name it keys the limiter's buckets (docs/admission.md), so a changed key or endpoint starts from
// fresh buckets rather than limits learnt from another account.
import type { Config } from '../config.js';
import { limiterIdentity } from '../model/model-rate-limiter.js';
import type { ProviderSettings } from './provider-settings.js';

/** The implicit provider's configuration, as its client is built from it (model-client.ts). */
export type ImplicitProviderEndpoint = Pick<Config, 'ANTHROPIC_API_KEY' | 'ANTHROPIC_BASE_URL' | 'BUILDFLEET_SIMULATOR_URL'> & {
  /** The base URL of a client the caller built itself (tests), over the configured one. */
  clientBaseUrl?: string | undefined;
};

/** The limiter identity of one provider's calls. */
export function providerLimiterIdentity(setting: ProviderSettings, implicit: ImplicitProviderEndpoint): string {
  switch (setting.kind) {
    case 'anthropic':
      // The implicit provider's identity is the one the limiter had before providers existed: its
      // key, else its URL, so the buckets a running fleet has learnt keep their keys.
      return setting.implicit
        ? limiterIdentity({
            apiKey: implicit.ANTHROPIC_API_KEY,
            baseUrl: implicit.clientBaseUrl ?? implicit.ANTHROPIC_BASE_URL ?? implicit.BUILDFLEET_SIMULATOR_URL,
          })
        : limiterIdentity({ apiKey: setting.options.apiKey, baseUrl: setting.options.baseUrl });
    case 'bedrock': {
      // Bedrock's quotas are an AWS account's, per region: the credential's and the region's.
      const { apiKey, awsAccessKey, region, baseUrl } = setting.options;
      const key = apiKey ?? awsAccessKey;
      return limiterIdentity({ apiKey: key ? `${key}@${region}` : undefined, baseUrl: `bedrock:${region}:${baseUrl ?? ''}` });
    }
    case 'vertex': {
      // Vertex's quotas are a project's, per region (its access token changes every hour).
      const { projectId, region, baseUrl } = setting.options;
      return limiterIdentity({ baseUrl: `vertex:${projectId}:${region}:${baseUrl ?? ''}` });
    }
    case 'openai_compatible':
      // A hosted API's limits are its key's; a self-hosted server's are the server's (its URL).
      return limiterIdentity({ apiKey: setting.options.apiKey, baseUrl: setting.options.baseUrl });
    default: {
      const unknownSetting: never = setting;
      throw new Error(`No provider kind for ${JSON.stringify(unknownSetting)}`);
    }
  }
}
