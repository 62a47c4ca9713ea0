// Claude on Google Cloud Vertex AI through the SDK's own client (@anthropic-ai/vertex-sdk): it
// rewrites the Messages request to Vertex's rawPredict / streamRawPredict paths and adds a Google
// OAuth token; Vertex streams the Messages SSE grammar as it is, so `callModel` works unchanged.
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { OAuth2Client } from 'google-auth-library';
import { z } from 'zod';
import { httpUrlSchema } from './http-url-schema.js';

export const vertexProviderOptionsSchema = z
  .object({
    /** The Vertex location (`us-east5`, `europe-west1`, …, or `global`). */
    region: z.string().min(1),
    projectId: z.string().min(1),
    /** Replaces `https://{region}-aiplatform.googleapis.com/v1` (the simulator in tests, a proxy). */
    baseUrl: httpUrlSchema.optional(),
    /** A ready OAuth access token; without it Google's Application Default Credentials. */
    accessToken: z.string().min(1).optional(),
    /** Fleet model id → Vertex model id, over the built-in table. */
    modelIds: z.record(z.string().min(1), z.string().min(1)).optional(),
  })
  .strict();

export type VertexProviderOptions = z.infer<typeof vertexProviderOptionsSchema>;

/**
 * Vertex's ids of the models in the fleet's capability table (docs
 * https://platform.claude.com/docs/en/build-with-claude/claude-on-vertex-ai, "API model IDs", and
 * https://platform.claude.com/docs/en/about-claude/models/model-ids-and-versions): before the 4.6
 * generation `claude-{name}-{version}@{date}`; from 4.6 on the Claude API id itself, so an id not
 * in the table (a newer model, or a Vertex id already) is sent as it is.
 */
const VERTEX_MODEL_IDS: Readonly<Record<string, string>> = {
  'claude-opus-4-6': 'claude-opus-4-6',
  'claude-sonnet-4-6': 'claude-sonnet-4-6',
  'claude-opus-4-5': 'claude-opus-4-5@20251101',
  'claude-opus-4-5-20251101': 'claude-opus-4-5@20251101',
  'claude-haiku-4-5': 'claude-haiku-4-5@20251001',
  'claude-haiku-4-5-20251001': 'claude-haiku-4-5@20251001',
  'claude-sonnet-4-5': 'claude-sonnet-4-5@20250929',
  'claude-sonnet-4-5-20250929': 'claude-sonnet-4-5@20250929',
  'claude-opus-4-1': 'claude-opus-4-1@20250805',
  'claude-opus-4-1-20250805': 'claude-opus-4-1@20250805',
  'claude-opus-4-0': 'claude-opus-4@20250514',
  'claude-opus-4-20250514': 'claude-opus-4@20250514',
  'claude-sonnet-4-0': 'claude-sonnet-4@20250514',
  'claude-sonnet-4-20250514': 'claude-sonnet-4@20250514',
};

/** The Vertex model id a fleet model id is called as. */
export function vertexModelId(options: Pick<VertexProviderOptions, 'modelIds'>, fleetModel: string): string {
  return options.modelIds?.[fleetModel] ?? VERTEX_MODEL_IDS[fleetModel] ?? fleetModel;
}

/** An AnthropicVertex client: no SDK retries (the queue retries), connectTimeoutMs as the SDK's
 * `timeout` (armed around the fetch, like the Anthropic client in model-client.ts). */
export function createVertexClient(options: VertexProviderOptions, common: { connectTimeoutMs: number }): AnthropicVertex {
  return new AnthropicVertex({
    region: options.region,
    projectId: options.projectId,
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    maxRetries: 0,
    timeout: common.connectTimeoutMs,
    // The SDK keeps `accessToken` but signs every request with its auth client's headers
    // (client.ts #adaptRequest), and its default auth client looks for Application Default
    // Credentials at construction. A given token therefore goes in as an OAuth2Client holding it:
    // no expiry, so it is sent as it is, never refreshed.
    ...(options.accessToken ? { authClient: clientWithAccessToken(options.accessToken) } : {}),
  });
}

function clientWithAccessToken(accessToken: string): OAuth2Client {
  const client = new OAuth2Client();
  client.setCredentials({ access_token: accessToken });
  return client;
}
