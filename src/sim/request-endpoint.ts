// Which API a recorded request spoke, for the request log (`GET /_sim/requests` `endpoint`).
import { CHAT_COMPLETIONS_PATH } from './chat-completions/handle-chat-completions.js';

export type RequestEndpoint = 'messages' | 'chat-completions' | 'other';

/** The endpoint a request path names. */
export function requestEndpoint({ path }: { path: string }): RequestEndpoint {
  if (path === '/v1/messages') return 'messages';
  if (path === CHAT_COMPLETIONS_PATH) return 'chat-completions';
  return 'other';
}
