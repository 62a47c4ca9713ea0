// The fleet's HTTP API as a Fastify instance (not listening: the caller listens or injects).
// zod validates every request part and response, the same schemas generate the OpenAPI document
// served at /docs, and every failure is answered as `{ error: { code, message } }` from the
// registry in api-errors.ts.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import { ApiKeyStore } from '../auth/api-key-store.js';
import type { FleetContext } from '../fleet/fleet-context.js';
import { registerKillSwitchRoutes } from './routes/kill-switch-routes.js';
import { API_ERRORS } from './api-errors.js';
import { errorHandlingServerOptions, installErrorHandling } from './install-error-handling.js';
import { registerRoute } from './define-route.js';
import { installJsonBodyParser } from './json-body-parser.js';
import { openApiTransform } from './openapi-transform.js';
import { installRequestAuth } from './request-auth.js';
import { adminQueuesRoute } from './routes/admin-queues-route.js';
import { adminWorkersRoute } from './routes/admin-workers-route.js';
import { adminClearSpendLimitRoute, adminSpendLimitRoute } from './routes/admin-spend-limit-routes.js';
import { cancelRunRoute } from './routes/cancel-run-route.js';
import { resumeRunRoute } from './routes/resume-run-route.js';
import { rerunRunRoute } from './routes/rerun-run-route.js';
import { getTenantPolicyRoute, putTenantPolicyRoute } from './routes/tenant-policy-routes.js';
import { spendRoute } from './routes/spend-route.js';
import { overviewRoute } from './routes/overview-route.js';
import { webhookSecretRoute } from './routes/webhook-secret-route.js';
import { agentsRoute } from './routes/agents-route.js';
import { createRunRoute } from './routes/create-run-route.js';
import { getRunRoute } from './routes/get-run-route.js';
import { runPayloadRoutes } from './routes/run-payload-routes.js';
import { killSwitchDocumentation } from './routes/kill-switch-documentation.js';
import { listRunsRoute } from './routes/list-runs-route.js';
import { healthzRoute, readyzRoute } from './routes/health-routes.js';
import { runEventsRoute, type OpenEventStreams } from './routes/run-events-route.js';
import { EventStreamMultiplexer } from './events/event-stream-multiplexer.js';
import { EventStreamSlots } from './events/event-stream-slots.js';
import { EVENTS_CONNECTION_NAME, FOLLOW_BLOCK_MS } from './events/follow-run-events.js';
import { runInputRoute } from './routes/run-input-route.js';
import { sitesMovedRoute } from './routes/sites-moved-route.js';
import { zodSerializerCompiler, zodValidatorCompiler } from './zod-route-compilers.js';

/** 256 KiB: a prompt is at most BUILDFLEET_MAX_PROMPT_CHARS (20,000 by default) characters, so
 * anything near this is not a real request. */
export const BODY_LIMIT_BYTES = 256 * 1024;

export interface ApiServerOptions {
  /** Log requests through the fleet's logger (default: off). */
  logger?: boolean;
  /** Interval of the SSE heartbeat comment (default 15 s); tests shorten it. */
  heartbeatMs?: number;
  /** How long a shared event reader keeps its Redis connection with no stream to follow
   * (default 5 s); tests shorten it. */
  eventReaderIdleMs?: number;
  /** How long one shared XREAD blocks (default FOLLOW_BLOCK_MS); tests lengthen it so that a
   * stream joining a blocked read can only be served at once by the CLIENT UNBLOCK. */
  eventReaderBlockMs?: number;
  /** Adds hooks and routes before the server is sealed (the process adds /metrics here). */
  extend?: (app: FastifyInstance) => void;
}

/** Builds the API server over a fleet context; the caller listens (or injects) and closes it. */
export async function buildApiServer(fleet: FleetContext, options: ApiServerOptions = {}): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    ...(options.logger ? { loggerInstance: fleet.logger.child({ component: 'api' }) } : { logger: false }),
    bodyLimit: BODY_LIMIT_BYTES,
    // Ids are generated per request; a client-supplied request id is not trusted for logs.
    requestIdHeader: false,
    ...errorHandlingServerOptions(),
  }) as unknown as FastifyInstance;

  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(zodSerializerCompiler);
  installJsonBodyParser({ app, bodyLimit: BODY_LIMIT_BYTES });

  installErrorHandling({ app });
  // After the closing check, before any body is read (see request-auth.ts).
  installRequestAuth({ app, keyStore: new ApiKeyStore({ redis: fleet.redis, keys: fleet.store.keys }), mode: fleet.config.BUILDFLEET_AUTH });
  if (fleet.config.BUILDFLEET_AUTH === 'disabled') {
    fleet.logger.warn('BUILDFLEET_AUTH=disabled: every API request acts as tenant default with every scope; for local experiments only');
  }

  const openStreams: OpenEventStreams = new Set();
  // Every event stream of this process reads through these few connections (and the tenant cap).
  const eventReaders = new EventStreamMultiplexer({
    engine: fleet.store,
    redis: fleet.redis,
    connections: fleet.config.BUILDFLEET_SSE_REDIS_CONNECTIONS,
    connectionName: `${EVENTS_CONNECTION_NAME}-${fleet.config.BUILDFLEET_PREFIX}`,
    blockMs: options.eventReaderBlockMs ?? FOLLOW_BLOCK_MS,
    idleCloseMs: options.eventReaderIdleMs ?? FOLLOW_BLOCK_MS,
  });
  const eventStreamSlots = new EventStreamSlots(fleet.config.BUILDFLEET_SSE_STREAMS_PER_TENANT);
  app.addHook('onClose', async () => eventReaders.close());
  // Event streams last as long as their runs; closing the server ends them (clients reconnect
  // elsewhere with Last-Event-ID) instead of waiting for every run to finish. Waiting here until
  // they have ended lets Fastify then close their connections as idle ones. It runs after the
  // preClose of installErrorHandling, so no new stream starts while these end.
  app.addHook('preClose', async () => {
    const streams = [...openStreams];
    for (const stream of streams) stream.controller.abort();
    await Promise.all(streams.map((stream) => stream.finished));
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'buildfleet API',
        version: '1.0.0',
        description:
          `Start LLM build runs, follow their events and answer their questions. The sites they build are served on a ` +
          `separate origin (\`BUILDFLEET_SITES_PUBLIC_URL\`, docs/sites.md).\n\n` +
          `Every error is \`{ "error": { "code", "message" } }\`. Codes:\n\n` +
          `${API_ERRORS.map((definition) => `- \`${definition.code}\` (${definition.statusCode}): ${definition.description}`).join('\n')}`,
      },
      tags: [
        { name: 'runs', description: 'Build runs' },
        { name: 'sites', description: 'The sites runs build and deploy: served on the sites origin (`BUILDFLEET_SITES_PUBLIC_URL`), never here' },
        { name: 'health', description: 'Liveness and readiness' },
        { name: 'admin', description: 'Operator endpoints (the `admin` scope)' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description:
              'An API key (`bf_…`) from `buildfleet keys create`, as `Authorization: Bearer bf_…`. Each ' +
              'key belongs to one tenant and has scopes: `runs:read`, `runs:write`, `admin` (includes both).',
          },
        },
      },
    },
    transform: openApiTransform,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  registerRoute({ app, route: createRunRoute({ fleet }) });
  registerRoute({ app, route: listRunsRoute({ fleet }) });
  registerRoute({ app, route: getRunRoute({ fleet }) });
  // A run's turns, tool calls, transcript and workspace files (issue #18).
  const payloadRoutes = runPayloadRoutes({ fleet });
  registerRoute({ app, route: payloadRoutes.turns });
  registerRoute({ app, route: payloadRoutes.toolCalls });
  registerRoute({ app, route: payloadRoutes.transcript });
  registerRoute({ app, route: payloadRoutes.files });
  registerRoute({ app, route: payloadRoutes.file });
  registerRoute({
    app,
    route: runEventsRoute({ fleet, openStreams, eventReaders, slots: eventStreamSlots, ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}) }),
  });
  registerRoute({ app, route: runInputRoute({ fleet }) });
  registerRoute({ app, route: cancelRunRoute({ fleet }) });
  registerRoute({ app, route: resumeRunRoute({ fleet }) });
  registerRoute({ app, route: rerunRunRoute({ fleet }) });
  registerRoute({ app, route: healthzRoute() });
  registerRoute({ app, route: readyzRoute({ fleet }) });
  // Sites are served on their own origin (sites-server.ts); here their paths only redirect.
  registerRoute({ app, route: sitesMovedRoute({ fleet }) });
  registerRoute({ app, route: adminQueuesRoute({ fleet }) });
  registerRoute({ app, route: adminWorkersRoute({ fleet }) });
  registerRoute({ app, route: adminSpendLimitRoute({ fleet }) });
  registerRoute({ app, route: adminClearSpendLimitRoute({ fleet }) });
  registerRoute({ app, route: getTenantPolicyRoute({ fleet }) });
  registerRoute({ app, route: putTenantPolicyRoute({ fleet }) });
  registerRoute({ app, route: spendRoute({ fleet }) });
  // The console's overview page: history, queues and the kill switch in one answer (issue #34).
  registerRoute({ app, route: overviewRoute({ fleet }) });
  registerRoute({ app, route: webhookSecretRoute({ fleet }) });
  registerRoute({ app, route: agentsRoute() });
  // The kill switch plugin's routes declare no access, so the auth hook requires `admin` for them
  // (its default); killSwitchDocumentation says so and documents them in the OpenAPI document.
  await app.register(async (scope) => {
    scope.addHook('onRoute', killSwitchDocumentation);
    registerKillSwitchRoutes(scope, fleet);
  });

  options.extend?.(app);
  await app.ready();
  return app;
}
