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

  const middleware: Middleware = async (request, next) => {
    const response = await next(request);
    if (!response.ok || !response.body) return response;
    arm();
    const observed = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, transformController) {
          arm();
          transformController.enqueue(chunk);
        },
        flush() {
          stop();
        },
      }),
    );
    return new Response(observed, { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  return {
    signal: controller.signal,
    get fired() {
      return fired;
    },
    middleware,
    stop,
  };
}
