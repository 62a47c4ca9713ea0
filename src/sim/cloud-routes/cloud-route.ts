// Which cloud endpoint a request is for. Both clouds take the Messages body on their own paths,
// with the model in the URL instead of the body:
// - Vertex AI: POST /v1/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:rawPredict
//   (JSON) and :streamRawPredict (SSE), as @anthropic-ai/vertex-sdk client.ts #adaptRequest builds
//   them (docs build-with-claude/claude-on-vertex-ai).
// - Bedrock: POST /model/{modelId}/invoke (JSON) and /model/{modelId}/invoke-with-response-stream
//   (AWS event stream), as @anthropic-ai/bedrock-sdk client.ts #adaptRequest builds them (AWS API
//   reference InvokeModel / InvokeModelWithResponseStream).

export type CloudProvider = 'bedrock' | 'vertex';

export interface CloudRoute {
  provider: CloudProvider;
  /** The model id as the URL names it (decoded): `anthropic.claude-…`, `us.anthropic.…`, `claude-…@…`. */
  modelId: string;
  stream: boolean;
  /** Vertex only: the project and location of the path. */
  project?: string;
  region?: string;
}

const VERTEX_PATH = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/;
const BEDROCK_PATH = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/;

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** The cloud route a POST path names, or null when it is not one. */
export function matchCloudRoute({ method, path }: { method: string; path: string }): CloudRoute | null {
  if (method !== 'POST') return null;
  const vertex = VERTEX_PATH.exec(path);
  if (vertex) {
    const [, project, region, model, specifier] = vertex;
    const modelId = decode(model!);
    if (modelId === null) return null;
    return { provider: 'vertex', modelId, stream: specifier === 'streamRawPredict', project: decode(project!) ?? project!, region: decode(region!) ?? region! };
  }
  const bedrock = BEDROCK_PATH.exec(path);
  if (bedrock) {
    const modelId = decode(bedrock[1]!);
    if (modelId === null) return null;
    return { provider: 'bedrock', modelId, stream: bedrock[2] === 'invoke-with-response-stream' };
  }
  return null;
}
