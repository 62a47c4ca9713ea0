// GET /v1/runs/:id/events: the run's trace as Server-Sent Events (replay, then live until the
// run ends), or as a JSON array of the events so far for `Accept: application/json`.
import { once } from 'node:events';
import type { FleetContext } from '../../fleet/fleet-context.js';
import { runEventsHeadersSchema, runEventsQuerySchema, runEventsSchema, runParamsSchema } from '../api-schemas.js';
import { defineRoute } from '../define-route.js';
import type { EventStreamMultiplexer } from '../events/event-stream-multiplexer.js';
import type { EventStreamSlots } from '../events/event-stream-slots.js';
import { followRunEvents, type FollowOutcome } from '../events/follow-run-events.js';
import type { RunStatus } from '../../engine/index.js';
import { apiErrors } from '../api-errors.js';
import { formatServerSentComment, formatServerSentEvent } from '../events/server-sent-event.js';
import { RunReader } from '../run-reader.js';
import { runTenantScopeOf, tenantOf } from '../tenant-of.js';

export const HEARTBEAT_INTERVAL_MS = 15_000;
// Tells EventSource how long to wait before reconnecting after the stream drops.
const RECONNECT_DELAY_MS = 2_000;
/** What a tenant at its cap of open streams is told to wait: streams end with their runs. */
const STREAM_CAP_RETRY_AFTER_SECONDS = 5;

/** Open streams, so closing the server can end them (and wait until they have ended) instead of
 * waiting for every run to finish. */
export type OpenEventStreams = Set<{ controller: AbortController; finished: Promise<void> }>;

/** Hands the events of a run that ended to `send`, in order, unless the client went away. */
async function replayEnded({
  events,
  status,
  signal,
  send,
}: {
  events: ReadonlyArray<{ id: string }>;
  status: RunStatus;
  signal: AbortSignal;
  send: (event: { id: string }) => Promise<void>;
}): Promise<FollowOutcome> {
  for (const event of events) {
    if (signal.aborted) return { ended: false };
    await send(event);
  }
  return signal.aborted ? { ended: false } : { ended: true, status };
}

function wantsJson(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.includes('application/json') && !accept.includes('text/event-stream');
}

export function runEventsRoute({
  fleet,
  openStreams,
  eventReaders,
  slots,
  heartbeatMs = HEARTBEAT_INTERVAL_MS,
}: {
  fleet: FleetContext;
  openStreams: OpenEventStreams;
  /** The process's shared Redis readers of event streams. */
  eventReaders: EventStreamMultiplexer;
  /** The per-tenant cap on open streams. */
  slots: EventStreamSlots;
  heartbeatMs?: number;
}) {
  const runs = new RunReader(fleet);
  return defineRoute({
    method: 'GET',
    url: '/v1/runs/:id/events',
    operationId: 'getRunEvents',
    summary: 'Stream a run’s events',
    description:
      'Server-Sent Events of the run’s trace: every event from the start (or after `Last-Event-ID` ' +
      '/ `?after=`), then new ones live until the run is terminal, then `event: end` with `{"status"}`. ' +
      'Each event has `id:` (usable as Last-Event-ID) and `data:` (the JSON event). A `: heartbeat` ' +
      'comment is sent every 15 s. With `Accept: application/json` the answer is instead a JSON ' +
      'array of the events so far. A finished run whose Redis keys have expired replays the same ' +
      'events from run history, then `event: end`. A tenant may hold `BUILDFLEET_SSE_STREAMS_PER_TENANT` ' +
      'streams open on one API process (default 100); one more is answered 429 `too_many_event_streams` ' +
      'with `retry-after`. Another tenant’s run answers `run_not_found`; a key with the `admin` ' +
      'scope follows every tenant’s runs (its streams count against its own tenant’s cap).',
    tags: ['runs'],
    access: 'runs:read',
    params: runParamsSchema,
    query: runEventsQuerySchema,
    headers: runEventsHeadersSchema,
    responses: {
      200: {
        description: 'An event stream (text/event-stream), or the events so far (application/json)',
        schema: runEventsSchema,
        contentTypes: ['text/event-stream'],
      },
    },
    errors: ['run_not_found', 'invalid_query', 'invalid_header', 'too_many_event_streams', 'history_unavailable'],
    async handler(request, reply) {
      const found = await runs.requireRun({ runId: request.params.id, tenant: runTenantScopeOf(request) });
      const run = found.run;
      // A reconnecting EventSource repeats the original URL, so its Last-Event-ID must win.
      const afterId = request.headers['last-event-id'] ?? request.query.after ?? '-';

      if (wantsJson(request.headers.accept)) return runs.readEvents({ found, afterId });

      // HEAD (Fastify answers it with this GET handler) holds no stream, so it takes no slot. The
      // slot is the caller's: an admin following another tenant's run uses its own tenant's cap.
      const tenant = tenantOf(request);
      const release = request.method === 'HEAD' ? () => undefined : slots.tryAcquire(tenant);
      if (!release) {
        throw apiErrors
          .tooManyEventStreams(
            `This tenant already has ${slots.openStreams(tenant)} event streams open on this server; close one, or retry when a run has ended.`,
          )
          .withHeaders({ 'retry-after': String(STREAM_CAP_RETRY_AFTER_SECONDS) });
      }
      try {
        reply.hijack();
      } catch (error) {
        release();
        throw error;
      }
      const raw = reply.raw;
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        // nginx buffers responses by default, which would hold events back until the run ends.
        'x-accel-buffering': 'no',
      });
      // HEAD (Fastify answers it with this GET handler) has no body to stream: following the
      // run would hold a stream open, and a Redis reader with it, for nothing (found by the fuzzer).
      if (request.method === 'HEAD') {
        raw.end();
        release();
        return;
      }
      const controller = new AbortController();
      let markFinished = () => {};
      const stream = { controller, finished: new Promise<void>((resolve) => (markFinished = resolve)) };
      openStreams.add(stream);
      const onClose = () => controller.abort();
      raw.on('close', onClose);
      const write = async (chunk: string) => {
        if (controller.signal.aborted || raw.writableEnded) return;
        // A slow client must not make the server buffer the whole trace in memory.
        if (!raw.write(chunk)) await once(raw, 'drain', { signal: controller.signal });
      };
      const heartbeat = setInterval(() => {
        if (!raw.writableEnded) raw.write(formatServerSentComment('heartbeat'));
      }, heartbeatMs);
      try {
        await write(`retry: ${RECONNECT_DELAY_MS}\n\n`);
        const send = (event: { id: string }) => write(formatServerSentEvent({ id: event.id, data: JSON.stringify(event) }));
        // A run only history holds has ended: its events are replayed from there, then the end. A
        // run in Redis is followed live there (a finished one replays and ends the same way).
        const outcome =
          found.source === 'history'
            ? await replayEnded({ events: await runs.readEvents({ found, afterId }), status: found.run.status, signal: controller.signal, send })
            : await followRunEvents({ fleet, events: eventReaders, runId: run.id, afterId, signal: controller.signal, send });
        if (outcome.ended) await write(formatServerSentEvent({ event: 'end', data: JSON.stringify({ status: outcome.status }) }));
      } catch (error) {
        // Headers are sent; the client sees the stream end and reconnects with Last-Event-ID.
        if (!controller.signal.aborted) request.log.warn({ err: error, runId: run.id }, 'event stream failed');
      } finally {
        clearInterval(heartbeat);
        raw.off('close', onClose);
        if (!raw.writableEnded) raw.end();
        openStreams.delete(stream);
        release();
        markFinished();
      }
    },
  });
}
