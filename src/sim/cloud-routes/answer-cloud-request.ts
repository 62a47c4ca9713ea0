// A Bedrock or Vertex request, answered by the simulator's own Messages handling: checked and
// translated like the cloud does (translate-cloud-request.ts), answered exactly like
// POST /v1/messages (faults, validation, rate limits, prompt cache, the builder), and the answer
// put back in the cloud's shape (cloud-error.ts, cloud-headers.ts; streams: cloud-stream-response.ts).
import type { IncomingHttpHeaders } from 'node:http';
import { bedrockUsageHeaders, cloudHeaders } from './cloud-headers.js';
import { cloudErrorAnswer, type CloudErrorAnswer } from './cloud-error.js';
import type { CloudRoute } from './cloud-route.js';
import { translateCloudRequest } from './translate-cloud-request.js';

export { matchCloudRoute, type CloudRoute } from './cloud-route.js';
export { cloudStreamResponse } from './cloud-stream-response.js';

interface MessagesAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  stream?: unknown;
}

export async function answerCloudRequest<Answer extends MessagesAnswer>({
  route,
  headers,
  bodyText,
  requestId,
  answerMessages,
}: {
  route: CloudRoute;
  headers: IncomingHttpHeaders;
  bodyText: string;
  requestId: string;
  /** The simulator's POST /v1/messages handling, given the translated request. */
  answerMessages: (request: { headers: IncomingHttpHeaders; bodyText: string }) => Promise<Answer | 'reset'>;
}): Promise<Answer | CloudErrorAnswer | 'reset'> {
  const started = Date.now();
  const translated = translateCloudRequest({ route, headers, bodyText, requestId });
  if (!translated.ok) return translated.answer;
  const answer = await answerMessages({ headers: translated.headers, bodyText: translated.bodyText });
  if (answer === 'reset') return answer;
  if (answer.status >= 400) {
    const error = cloudErrorAnswer({ provider: route.provider, status: answer.status, body: answer.body, requestId, model: translated.model });
    return { ...error, headers: { ...cloudHeaders({ provider: route.provider, headers: answer.headers, requestId }), ...error.headers } };
  }
  const usage =
    route.provider === 'bedrock' && !answer.stream
      ? bedrockUsageHeaders((answer.body as { usage?: { input_tokens?: number; output_tokens?: number } }).usage, Date.now() - started)
      : {};
  return { ...answer, headers: { ...cloudHeaders({ provider: route.provider, headers: answer.headers, requestId }), ...usage } };
}
