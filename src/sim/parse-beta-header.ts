// The `anthropic-beta` request header as a list of beta names. The SDK joins a request's betas with
// commas into one header (src/resources/beta/messages/messages.ts: `'anthropic-beta':
// [...(betas ?? []), …].toString()`); a client may also repeat the header, which node:http joins
// with ", ".

/** Betas the simulator acts on (docs: build-with-claude/extended-thinking, "Interleaved thinking";
 * agents-and-tools/tool-use/fine-grained-tool-streaming). */
export const INTERLEAVED_THINKING_BETA = 'interleaved-thinking-2025-05-14';
export const FINE_GRAINED_TOOL_STREAMING_BETA = 'fine-grained-tool-streaming-2025-05-14';

/** The beta names in the header, trimmed, empty ones dropped. */
export function parseBetaHeader({ header }: { header: string | string[] | undefined }): string[] {
  if (header === undefined) return [];
  const values = Array.isArray(header) ? header : [header];
  return values
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
}
