// The pacing both streamed APIs share (Messages events, stream-message.ts; chat completion chunks,
// chat-completions/stream-chat-completion.ts): the first item at once, every later one after the time
// to first token plus its share of the generation time by output written (timing-profile.ts). Writes
// are batched until a wait is long enough to sleep, so a fast profile costs one write, not thousands;
// a write the socket does not take waits for `drain`. A client that disconnects (or a caller's
// signal) stops the stream at the next wait.
import type { ServerResponse } from 'node:http';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { millisecondsForTokens, type AnswerTiming } from './timing-profile.js';

/** Waits shorter than this are not slept: writes are batched instead. */
const MINIMUM_SLEEP_MS = 4;

/** A `stream_stall` fault: the stream goes silent (no keep-alives either) after this many items. */
export interface StreamStallPlan {
  afterEvents: number;
  stallMs: number;
}

export type StreamOutcome = 'completed' | 'errored' | 'aborted';

export interface PacedItem {
  /** Output characters written once this item is out, for pacing. */
  charactersAt: number;
}

/** Writes `items` as a server-sent event stream on `outgoing` (status 200, `headers` added), paced. */
export async function writePacedStream<Item extends PacedItem>({
  outgoing,
  headers,
  items,
  encode,
  timing,
  outputTokens,
  stall,
  failure,
  keepAlive,
  trailer = '',
  signal,
}: {
  outgoing: ServerResponse;
  headers: Record<string, string>;
  items: readonly Item[];
  encode: (item: Item) => string;
  timing: AnswerTiming;
  /** Output tokens of the whole answer, which the generation time is made of. */
  outputTokens: number;
  stall: StreamStallPlan | undefined;
  /** A scripted mid-stream error: written instead of the first item it is due at, ending the stream. */
  failure: { isDue: (item: Item, index: number) => boolean; encoded: string } | undefined;
  /** Written during a wait longer than `intervalMs`, so the stream is never silent longer than that. */
  keepAlive?: { intervalMs: number; encoded: string };
  /** Written after the last item (chat completions' `data: [DONE]`). */
  trailer?: string;
  signal: AbortSignal;
}): Promise<StreamOutcome> {
  const totalCharacters = items[items.length - 1]?.charactersAt ?? 0;
  const generationMs = millisecondsForTokens({ timing, outputTokens });
  // Due time of an item: TTFT before the first content, then spread by output written.
  const dueMs = (item: Item, index: number) =>
    index === 0 ? 0 : timing.ttftMs + (totalCharacters === 0 ? generationMs : (item.charactersAt / totalCharacters) * generationMs);
  const keepAliveIntervalMs = keepAlive?.intervalMs ?? Number.POSITIVE_INFINITY;

  const disconnected = new AbortController();
  outgoing.once('close', () => disconnected.abort());
  const stop = AbortSignal.any([signal, disconnected.signal]);

  outgoing.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers });
  outgoing.flushHeaders();
  const started = Date.now();
  let stalledMs = 0;
  let pending = '';
  const flush = async () => {
    if (pending === '') return;
    const ok = outgoing.write(pending);
    pending = '';
    if (!ok) await once(outgoing, 'drain', { signal: stop });
  };

  try {
    for (const [index, item] of items.entries()) {
      if (failure?.isDue(item, index)) {
        pending += failure.encoded;
        await flush();
        outgoing.end();
        return 'errored';
      }
      if (stall && index === stall.afterEvents) {
        await flush();
        await sleep(stall.stallMs, undefined, { signal: stop });
        stalledMs = stall.stallMs;
      }
      let waitMs = dueMs(item, index) + stalledMs - (Date.now() - started);
      if (waitMs >= MINIMUM_SLEEP_MS) await flush();
      while (waitMs >= MINIMUM_SLEEP_MS) {
        await sleep(Math.min(waitMs, keepAliveIntervalMs), undefined, { signal: stop });
        waitMs = dueMs(item, index) + stalledMs - (Date.now() - started);
        if (keepAlive && waitMs >= MINIMUM_SLEEP_MS) {
          pending += keepAlive.encoded;
          await flush();
        }
      }
      pending += encode(item);
    }
    pending += trailer;
    await flush();
    outgoing.end();
    return 'completed';
  } catch (error) {
    if (!stop.aborted) throw error;
    outgoing.destroy();
    return 'aborted';
  }
}
