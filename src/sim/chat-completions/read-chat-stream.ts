// Reads a chat completions event stream the way openai-node's SSE decoder does (src/core/streaming.ts:
// `data:` lines, events split by a blank line, `[DONE]` ends it), for tests that check the raw chunks.

export interface RawChatChunk {
  object?: string;
  choices?: Array<{ index: number; delta: Record<string, unknown>; finish_reason: string | null }>;
  usage?: unknown;
  error?: Record<string, unknown>;
}

/** Every JSON chunk of the stream, and whether `data: [DONE]` ended it. */
export async function readChatStream(response: Response): Promise<{ chunks: RawChatChunk[]; done: boolean }> {
  const text = await response.text();
  const chunks: RawChatChunk[] = [];
  let done = false;
  for (const event of text.split('\n\n')) {
    const data = event
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice('data:'.length).trimStart())
      .join('\n');
    if (data === '') continue;
    if (data === '[DONE]') {
      done = true;
      continue;
    }
    chunks.push(JSON.parse(data) as RawChatChunk);
  }
  return { chunks, done };
}
