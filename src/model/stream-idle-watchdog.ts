// The idle timeout of a streamed model call. A long answer legitimately takes minutes, so a total
// timeout would abandon (and pay again for) exactly the answers worth having; what marks a dead
// call is silence. The API keeps a healthy stream talking: content events while it writes and
// `ping` events in between (build-with-claude/streaming: "Event streams may also include any
// number of ping events"). The SDK drops pings before they reach MessageStream
// (core/streaming.ts, `if (sse.event === 'ping') continue`), so the watchdog watches the response
// body itself, through a per-request middleware (core/middleware.ts): every chunk of bytes, ping
// or content, resets the timer. The SDK's own `timeout` only covers the wait for the response
// headers (client.ts, "Arm the timeout around the underlying fetch only"), so the two never overlap.
import type { Middleware } from '@anthropic-ai/sdk';

/** The stream sent nothing (not even a ping) for the idle timeout, so the call was abandoned. */
export class ModelStreamIdleError extends Error {
  readonly code = 'model_stream_idle';
  constructor(
    readonly idleTimeoutMs: number,
    readonly requestId: string | null,
  ) {
    super(`The model stream sent no event for ${idleTimeoutMs} ms; the call was abandoned.`);
    this.name = 'ModelStreamIdleError';
  }
}

export interface StreamIdleWatchdog {
  /** Aborted when the stream stays silent too long; pass it as the request's signal. */
  readonly signal: AbortSignal;
  /** Whether the watchdog (rather than the caller) aborted the call. */
  readonly fired: boolean;
  /** Wraps the response body so each chunk counts as activity; arms the timer at the headers. */
  readonly middleware: Middleware;
  /** The same for a response fetched outside the Anthropic SDK (the OpenAI SDK has no middleware:
   * src/providers/openai-compatible-provider.ts wraps its fetch). Returns the response. */
  watch(response: Response): Response;
  /** Stops the timer (the call ended one way or another). */
  stop(): void;
}

/** A watchdog for one call; `outer` is the caller's own signal (shutdown, cancellation). */
export function createStreamIdleWatchdog({ idleTimeoutMs, outer }: { idleTimeoutMs: number; outer?: AbortSignal | undefined }): StreamIdleWatchdog {
  const controller = new AbortController();
  let fired = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const arm = () => {
    if (stopped) return;
    // Every chunk re-arms: refresh() restarts the same timer instead of allocating a new one.
    if (timer) {
      timer.refresh();
      return;
    }
    timer = setTimeout(() => {
      fired = true;
      controller.abort();
    }, idleTimeoutMs);
  };
  const stop = () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    outer?.removeEventListener('abort', forward);
  };
  const forward = () => controller.abort();
  if (outer?.aborted) controller.abort();
  else outer?.addEventListener('abort', forward, { once: true });

  const watch = (response: Response): Response => {
    if (!response.ok || !response.body) return response;
    arm();
    observeChunks(response.body, arm, stop);
    return response;
  };
  const middleware: Middleware = async (request, next) => watch(await next(request));

  return {
    signal: controller.signal,
    get fired() {
      return fired;
    },
    middleware,
    watch,
    stop,
  };
}

/**
 * Calls `onChunk` for every chunk read from the body and `onEnd` when it ends, by wrapping the
 * body's own readers in place. The SDK reads a response body through `body[Symbol.asyncIterator]`
 * where the runtime has one, else `getReader()` (internal/shims.ts readableStreamIterator); both
 * are wrapped, so either way every chunk — pings included, which the SDK drops before any event
 * reaches us — counts as activity. (A `pipeThrough(new TransformStream())` did the same at the
 * cost of a second stream, its queue and promises per chunk, on every call of every turn.)
 */
/** What a body reader's read() resolves to (the DOM lib's ReadableStreamReadResult). */
type ReadableStreamReadResultOf = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;

function observeChunks(body: ReadableStream<Uint8Array>, onChunk: () => void, onEnd: () => void): void {
  const observe = (result: ReadableStreamReadResultOf | IteratorResult<Uint8Array>) => {
    if (result.done) onEnd();
    else onChunk();
    return result;
  };
  const nativeIterator = (body as unknown as { [Symbol.asyncIterator]?: (...args: unknown[]) => AsyncIterator<Uint8Array> })[Symbol.asyncIterator];
  if (typeof nativeIterator === 'function') {
    Object.defineProperty(body, Symbol.asyncIterator, {
      configurable: true,
      value(...args: unknown[]) {
        const inner = nativeIterator.apply(body, args);
        const iterator: AsyncIterableIterator<Uint8Array> = {
          next: (...nextArgs: [] | [undefined]) => inner.next(...nextArgs).then(observe) as Promise<IteratorResult<Uint8Array>>,
          return: (value?: unknown) => (inner.return ? inner.return(value) : Promise.resolve({ done: true as const, value: undefined })),
          [Symbol.asyncIterator]() {
            return iterator;
          },
        };
        return iterator;
      },
    });
  }
  const nativeGetReader = body.getReader.bind(body) as () => ReadableStreamDefaultReader<Uint8Array>;
  Object.defineProperty(body, 'getReader', {
    configurable: true,
    value(...args: unknown[]) {
      const reader = (nativeGetReader as (...readerArgs: unknown[]) => ReadableStreamDefaultReader<Uint8Array>)(...args);
      const read = reader.read.bind(reader);
      reader.read = () => read().then(observe) as Promise<ReadableStreamReadResultOf>;
      return reader;
    },
  });
}
