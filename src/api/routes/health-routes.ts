// GET /healthz (the process is up) and GET /readyz (it can reach Redis): liveness and readiness
// are separate so an orchestrator restarts a wedged process but only drains one that lost Redis.
import type { FleetContext } from '../../fleet/fleet-context.js';
import { apiErrors } from '../api-errors.js';
import { healthSchema, readinessFailureSchema } from '../api-schemas.js';
import { defineRoute } from '../define-route.js';

const READINESS_TIMEOUT_MS = 1_000;

async function pingWithin({ fleet, timeoutMs }: { fleet: FleetContext; timeoutMs: number }): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer to PING within ${timeoutMs} ms`), timeoutMs);
  });
  try {
    const outcome = await Promise.race([
      fleet.redis.ping().then(
        () => null,
        () => 'PING failed',
      ),
      timeout,
    ]);
    return outcome;
  } finally {
    clearTimeout(timer);
  }
}

export function healthzRoute() {
  return defineRoute({
    method: 'GET',
    url: '/healthz',
    operationId: 'getLiveness',
    summary: 'Liveness',
    description: 'Answers 200 while the process can serve HTTP; does not touch Redis.',
    tags: ['health'],
    access: 'public',
    responses: { 200: { description: 'Alive', schema: healthSchema } },
    errors: [],
    async handler() {
      return { ok: true as const };
    },
  });
}

export function readyzRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'GET',
    url: '/readyz',
    operationId: 'getReadiness',
    summary: 'Readiness',
    description: 'Answers 200 when Redis answers PING within 1 s, else 503.',
    tags: ['health'],
    access: 'public',
    responses: {
      200: { description: 'Ready', schema: healthSchema },
      503: { description: '`redis_unavailable`: Redis did not answer PING within 1 s', schema: readinessFailureSchema },
    },
    errors: [],
    async handler(_request, reply) {
      const problem = await pingWithin({ fleet, timeoutMs: READINESS_TIMEOUT_MS });
      if (problem === null) return { ok: true as const };
      const error = apiErrors.redisUnavailable(`Redis is unavailable: ${problem}.`);
      reply.code(error.statusCode);
      return { ok: false as const, error: { code: error.code, message: error.message } };
    },
  });
}
