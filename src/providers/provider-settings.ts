// Each provider's settings, checked against its kind's own schema: BUILDFLEET_PROVIDERS declares
// them (config.ts checks only the shared shape: src/domain/provider-declarations.ts), and the
// implicit `anthropic` provider is today's configuration (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
// BUILDFLEET_SIMULATOR_URL), so a fleet that declares nothing behaves as before.
import { z } from 'zod';
import { httpUrlSchema } from './http-url-schema.js';
import type { Config } from '../config.js';
import { IMPLICIT_PROVIDER } from '../domain/provider-declarations.js';
import { bedrockProviderOptionsSchema, type BedrockProviderOptions } from './bedrock-client.js';
import { openAiCompatibleProviderOptionsSchema, type OpenAiCompatibleProviderOptions } from './openai-compatible-provider.js';
import { vertexProviderOptionsSchema, type VertexProviderOptions } from './vertex-client.js';
import { formatZodIssues } from '../domain/format-zod-issues.js';

/** A declared `anthropic` provider: another key or endpoint of the Anthropic API. */
export const anthropicProviderOptionsSchema = z
  .object({
    apiKey: z.string().min(1).optional(),
    baseUrl: httpUrlSchema.optional(),
  })
  .strict();
export type AnthropicProviderOptions = z.infer<typeof anthropicProviderOptionsSchema>;

export type ProviderSettings =
  | { name: string; kind: 'anthropic'; options: AnthropicProviderOptions; implicit: boolean }
  | { name: string; kind: 'bedrock'; options: BedrockProviderOptions }
  | { name: string; kind: 'vertex'; options: VertexProviderOptions }
  | { name: string; kind: 'openai_compatible'; options: OpenAiCompatibleProviderOptions };

export class ProviderConfigurationError extends Error {
  readonly code = 'provider_not_configured';
}

function check<Schema extends z.ZodType>(name: string, schema: Schema, options: unknown): z.infer<Schema> {
  const parsed = schema.safeParse(options);
  if (parsed.success) return parsed.data;
  throw new ProviderConfigurationError(`Invalid environment: ${formatZodIssues({ issues: parsed.error.issues, root: `BUILDFLEET_PROVIDERS.${name}` })}`);
}

/** Every provider's settings by name, the implicit `anthropic` included (unless declared anew);
 * throws ProviderConfigurationError naming the first bad declaration's fields. */
export function readProviderSettings(
  config: Pick<Config, 'BUILDFLEET_PROVIDERS' | 'ANTHROPIC_API_KEY' | 'ANTHROPIC_BASE_URL'>,
): ReadonlyMap<string, ProviderSettings> {
  const settings = new Map<string, ProviderSettings>();
  settings.set(IMPLICIT_PROVIDER, { name: IMPLICIT_PROVIDER, kind: 'anthropic', options: {}, implicit: true });
  for (const [name, declaration] of Object.entries(config.BUILDFLEET_PROVIDERS)) {
    const { kind, ...options } = declaration;
    switch (kind) {
      case 'anthropic':
        settings.set(name, { name, kind, options: check(name, anthropicProviderOptionsSchema, options), implicit: false });
        break;
      case 'bedrock':
        settings.set(name, { name, kind, options: check(name, bedrockProviderOptionsSchema, options) });
        break;
      case 'vertex':
        settings.set(name, { name, kind, options: check(name, vertexProviderOptionsSchema, options) });
        break;
      case 'openai_compatible':
        settings.set(name, { name, kind, options: check(name, openAiCompatibleProviderOptionsSchema, options) });
        break;
      default: {
        const unknownKind: never = kind;
        throw new ProviderConfigurationError(`BUILDFLEET_PROVIDERS.${name}.kind: ${String(unknownKind)} is no provider kind`);
      }
    }
  }
  return settings;
}
