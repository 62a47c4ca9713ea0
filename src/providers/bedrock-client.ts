// Claude on Amazon Bedrock through the SDK's own client (@anthropic-ai/bedrock-sdk): it rewrites
// the Messages request to Bedrock's InvokeModel paths, signs it with SigV4 and turns Bedrock's
// binary event stream back into the Messages SSE stream, so `callModel` works on it unchanged.
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { z } from 'zod';
import { httpUrlSchema } from './http-url-schema.js';

export const bedrockProviderOptionsSchema = z
  .object({
    /** The AWS region of the bedrock-runtime endpoint (and of the SigV4 signature). */
    region: z.string().min(1),
    /** Replaces `https://bedrock-runtime.{region}.amazonaws.com` (the simulator in tests, a VPC endpoint). */
    baseUrl: httpUrlSchema.optional(),
    /** Static credentials; without them the AWS default credential chain (env, profile, SSO, IMDS…). */
    awsAccessKey: z.string().min(1).optional(),
    awsSecretKey: z.string().min(1).optional(),
    awsSessionToken: z.string().min(1).optional(),
    /** A Bedrock API key (sent as a Bearer token instead of a SigV4 signature). */
    apiKey: z.string().min(1).optional(),
    /** Fleet model id → Bedrock model id or inference profile, over the built-in table. */
    modelIds: z.record(z.string().min(1), z.string().min(1)).optional(),
  })
  .strict()
  .refine((options) => (options.awsAccessKey === undefined) === (options.awsSecretKey === undefined), {
    message: 'awsAccessKey and awsSecretKey go together (or neither, for the AWS default credential chain)',
  })
  .refine((options) => options.awsSessionToken === undefined || options.awsAccessKey !== undefined, {
    message: 'awsSessionToken needs awsAccessKey and awsSecretKey',
  });

export type BedrockProviderOptions = z.infer<typeof bedrockProviderOptionsSchema>;

/**
 * Bedrock's ids of the models in the fleet's capability table (docs
 * https://platform.claude.com/docs/en/build-with-claude/claude-on-amazon-bedrock, "API model IDs",
 * and https://platform.claude.com/docs/en/about-claude/models/model-ids-and-versions). These are
 * the in-region ids; a cross-region inference profile (`us.`, `eu.`, `jp.`, `apac.`, `global.`
 * prefix) goes through `modelIds`.
 */
const BEDROCK_MODEL_IDS: Readonly<Record<string, string>> = {
  'claude-opus-4-6': 'anthropic.claude-opus-4-6-v1',
  'claude-sonnet-4-6': 'anthropic.claude-sonnet-4-6',
  'claude-opus-4-5': 'anthropic.claude-opus-4-5-20251101-v1:0',
  'claude-opus-4-5-20251101': 'anthropic.claude-opus-4-5-20251101-v1:0',
  'claude-haiku-4-5': 'anthropic.claude-haiku-4-5-20251001-v1:0',
  'claude-haiku-4-5-20251001': 'anthropic.claude-haiku-4-5-20251001-v1:0',
  'claude-sonnet-4-5': 'anthropic.claude-sonnet-4-5-20250929-v1:0',
  'claude-sonnet-4-5-20250929': 'anthropic.claude-sonnet-4-5-20250929-v1:0',
  'claude-opus-4-1': 'anthropic.claude-opus-4-1-20250805-v1:0',
  'claude-opus-4-1-20250805': 'anthropic.claude-opus-4-1-20250805-v1:0',
  'claude-opus-4-0': 'anthropic.claude-opus-4-20250514-v1:0',
  'claude-opus-4-20250514': 'anthropic.claude-opus-4-20250514-v1:0',
  'claude-sonnet-4-0': 'anthropic.claude-sonnet-4-20250514-v1:0',
  'claude-sonnet-4-20250514': 'anthropic.claude-sonnet-4-20250514-v1:0',
};

/** The Bedrock model id (or inference profile) a fleet model id is called as. */
export function bedrockModelId(options: Pick<BedrockProviderOptions, 'modelIds'>, fleetModel: string): string {
  const mapped = options.modelIds?.[fleetModel] ?? BEDROCK_MODEL_IDS[fleetModel];
  if (mapped) return mapped;
  // From the 4.6 generation on, a Claude API id is dateless and Bedrock's is the same id with the
  // `anthropic.` prefix (model-ids-and-versions: "anthropic.claude-{name}-{major}-{minor}").
  // Anything else (a Bedrock id, an inference profile, an ARN) is sent as it is.
  return DATELESS_CLAUDE_ID.test(fleetModel) ? `anthropic.${fleetModel}` : fleetModel;
}

const DATELESS_CLAUDE_ID = /^claude-[a-z]+-\d+(-\d+)?$/;

/** An AnthropicBedrock client: no SDK retries (the queue retries), connectTimeoutMs as the SDK's
 * `timeout` (armed around the fetch, like the Anthropic client in model-client.ts). */
export function createBedrockClient(options: BedrockProviderOptions, common: { connectTimeoutMs: number }): AnthropicBedrock {
  const shared = {
    awsRegion: options.region,
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    maxRetries: 0,
    timeout: common.connectTimeoutMs,
  };
  if (options.apiKey) return new AnthropicBedrock({ ...shared, apiKey: options.apiKey });
  if (options.awsAccessKey && options.awsSecretKey) {
    return new AnthropicBedrock({
      ...shared,
      awsAccessKey: options.awsAccessKey,
      awsSecretKey: options.awsSecretKey,
      awsSessionToken: options.awsSessionToken ?? null,
    });
  }
  // Neither: the SDK resolves the AWS default credential chain on each request (core/auth.ts).
  return new AnthropicBedrock(shared);
}
