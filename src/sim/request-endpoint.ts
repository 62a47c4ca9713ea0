// Which API a recorded request spoke, for the request log (`GET /_sim/requests` `endpoint`).
import { COUNT_TOKENS_PATH } from './answer-count-tokens.js';
import { isModelsPath } from './answer-models-request.js';
import { CHAT_COMPLETIONS_PATH } from './chat-completions/handle-chat-completions.js';

export type RequestEndpoint = 'messages' | 'count-tokens' | 'models' | 'chat-completions' | 'other';

/** The endpoint a request path names. */
export function requestEndpoint({ path }: { path: string }): RequestEndpoint {
  if (path === '/v1/messages') return 'messages';
  if (path === COUNT_TOKENS_PATH) return 'count-tokens';
  if (isModelsPath({ path })) return 'models';
  if (path === CHAT_COMPLETIONS_PATH) return 'chat-completions';
  return 'other';
}
