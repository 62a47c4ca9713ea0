// The format a drifting turn writes its tool call in on the chat completions endpoint: the one
// header `x-buildfleet-text-format` pins (any format or alias, text-call-decision.ts), else one of
// the model family's own formats (chat-model-catalog.ts), picked per transcript like the Messages
// endpoint's rotation; a Claude id rotates as on /v1/messages. Whether the turn drifts at all stays
// the `x-buildfleet-text-calls` mode's call. Without a server-side tool parser the drifted call is
// plain `content` with finish_reason `stop`, which is what vLLM answers when it runs without
// `--enable-auto-tool-choice` or its parser does not recognise the text.
import { hashTranscript } from '../deterministic-random.js';
import type { MessagesRequest } from '../messages-request.js';
import { HEADER_TEXT_FORMAT, parseTextFormatHeader, pickTextCallFormat } from '../text-call-decision.js';
import type { TextToolCallFormat } from '../text-tool-call-format.js';
import type { ChatModel } from './chat-model-catalog.js';
import { ChatRequestRefused } from './openai-error.js';

export { HEADER_TEXT_FORMAT };

/** The pinned format for this request; null lets respondToMessages rotate over the Claude drift formats. */
export function chatTextFormat({
  header,
  model,
  request,
  seed,
}: {
  header: string | undefined;
  model: ChatModel;
  request: MessagesRequest;
  seed: number;
}): TextToolCallFormat | null {
  const parsed = parseTextFormatHeader(header);
  if (!parsed.ok) throw new ChatRequestRefused({ message: parsed.message });
  if (parsed.format !== null) return parsed.format;
  if (model.textFormats === null) return null;
  const transcriptHash = hashTranscript({ messages: request.messages, toolNames: request.toolNames });
  return pickTextCallFormat({ seed, transcriptHash, formats: model.textFormats });
}
