// The headers a cloud answer carries. Neither cloud forwards Anthropic's `anthropic-ratelimit-*`
// headers nor its `retry-after` (their limits are their own quotas: Bedrock's per-account tokens
// and requests per minute, Vertex's per-project quotas), so they are dropped from every answer.
// Bedrock adds its request id and, on InvokeModel answers, the token counts of the invocation
// (AWS API reference InvokeModel, "Response Syntax": X-Amzn-Bedrock-Input-Token-Count,
// X-Amzn-Bedrock-Output-Token-Count, X-Amzn-Bedrock-Invocation-Latency).
import type { CloudProvider } from './cloud-route.js';

function isAnthropicOnly(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith('anthropic-ratelimit-') || lower === 'retry-after' || lower === 'retry-after-ms';
}

export function cloudHeaders({
  provider,
  headers,
  requestId,
}: {
  provider: CloudProvider;
  headers: Record<string, string> | undefined;
  requestId: string;
}): Record<string, string> {
  const kept = Object.fromEntries(Object.entries(headers ?? {}).filter(([name]) => !isAnthropicOnly(name)));
  return provider === 'bedrock' ? { ...kept, 'x-amzn-requestid': requestId } : kept;
}

/** Bedrock's InvokeModel token-count headers for an answer's usage. */
export function bedrockUsageHeaders(usage: { input_tokens?: number; output_tokens?: number } | undefined, latencyMs: number): Record<string, string> {
  if (!usage) return {};
  return {
    'x-amzn-bedrock-input-token-count': String(usage.input_tokens ?? 0),
    'x-amzn-bedrock-output-token-count': String(usage.output_tokens ?? 0),
    'x-amzn-bedrock-invocation-latency': String(Math.round(latencyMs)),
  };
}
