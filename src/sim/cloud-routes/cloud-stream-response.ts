// Where a cloud route's streamed answer is written: Bedrock frames it as an AWS event stream
// (bedrock-event-stream.ts); Vertex's streamRawPredict is the Messages SSE stream itself
// (docs build-with-claude/claude-on-vertex-ai), only without Anthropic's rate-limit headers.
import type { ServerResponse } from 'node:http';
import { bedrockEventStreamResponse } from './bedrock-event-stream.js';
import { cloudHeaders } from './cloud-headers.js';
import type { CloudRoute } from './cloud-route.js';

export function cloudStreamResponse({ route, outgoing, requestId }: { route: CloudRoute; outgoing: ServerResponse; requestId: string }): ServerResponse {
  if (route.provider === 'bedrock') return bedrockEventStreamResponse({ outgoing, requestId });
  const writeHead = (status: number, headers: Record<string, string> = {}) =>
    outgoing.writeHead(status, cloudHeaders({ provider: 'vertex', headers, requestId }));
  return new Proxy(outgoing, {
    get(target, property) {
      if (property === 'writeHead') return writeHead;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
