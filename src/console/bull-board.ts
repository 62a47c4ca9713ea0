// Bull Board (the BullMQ dashboard) on the console's origin under /queues, for admin sessions only.
// It lives here rather than on the API because it is a browser page: it needs the console's
// cookie session (the API takes bearer keys only) and must stay off the sites origin, where
// model-written pages run. Every request under /queues — the page, its scripts and styles, and
// the JSON its page reads — passes the admin check first, against the key store rather than the
// session's copy of the scopes, so a key revoked since sign-in loses the board at its next request.
//
// The queues are shown read-only: a run's jobs move through the run engine (one owner for a run's
// state, docs/architecture.md), and retrying, promoting or deleting one of its jobs by hand would
// act behind the engine's back — a tool call run twice, a turn stranded. Bull Board refuses those
// actions on the server for a read-only queue (405), not only in its page. Cancel, resume and the
// kill switch are the controls for runs.
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleError } from './console-errors.js';

/** Where the board is mounted on the console's origin. */
export const BULL_BOARD_PATH = '/queues';

/** Whether a request URL is the board's (its page, assets or API). */
export function isBullBoardUrl(url: string): boolean {
  return url === BULL_BOARD_PATH || url.startsWith(`${BULL_BOARD_PATH}/`) || url.startsWith(`${BULL_BOARD_PATH}?`);
}

/** Mounts the board for `queues` under BULL_BOARD_PATH; `refusalOf` answers null for an admin
 * session, else the error to answer with (it may set headers on the reply, e.g. clear the cookie). */
export async function mountBullBoard({
  app,
  queues,
  refusalOf,
}: {
  app: FastifyInstance;
  /** Each queue with what goes before its name on the board (the shard, when there are several). */
  queues: ReadonlyArray<{ queue: Queue; label: string }>;
  refusalOf: (request: FastifyRequest, reply: FastifyReply) => Promise<ConsoleError | null>;
}): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: queues.map(({ queue, label }) => new BullMQAdapter(queue, { readOnlyMode: true, prefix: label })),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'buildfleet queues', miscLinks: [{ text: 'Run console', url: '/' }] } },
  });
  await app.register(async (scope) => {
    // The board's plugin sets an error handler of its own that answers every thrown error as a
    // 500, so a refusal is sent from here rather than thrown.
    scope.addHook('onRequest', async (request, reply) => {
      const refusal = await refusalOf(request, reply);
      if (refusal === null) return;
      request.log.warn({ url: request.url, code: refusal.code }, 'console refused a Bull Board request');
      return reply.code(refusal.statusCode).send(refusal.toBody());
    });
    await scope.register(serverAdapter.registerPlugin(), { prefix: BULL_BOARD_PATH });
  });
}
