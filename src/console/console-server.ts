// The run console's server (docs/console.md): the browser app's page and assets, the session
// (sign-in with an API key, sign-out), and /api/v1/… forwarded to the API with the session's key.
// It listens on an origin of its own (BUILDFLEET_CONSOLE_PORT): never the API's, whose key-bearing
// clients it must not share a cookie jar or a CSP with, and never the sites', where model-written
// pages run. The API key a user pastes is checked once, sealed into a Redis session, and never
// sent back to page JavaScript: the page holds only an HttpOnly cookie it cannot read.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiKeyStore } from '../auth/api-key-store.js';
import type { FleetContext } from '../fleet/fleet-context.js';
import { consoleBaseUrlOf } from '../config.js';
import { BULL_BOARD_PATH, mountBullBoard } from './bull-board.js';
import { ConsoleError } from './console-errors.js';
import { loadConsoleAssets, type ConsoleAsset } from './console-assets.js';
import { installConsoleSecurityHeaders } from './console-security-headers.js';
import { ConsoleSessionStore, StoredConsoleSessionInvalid, type ConsoleSession } from './console-session-store.js';
import { forwardToApi, type OpenUpstreams } from './forward-to-api.js';
import { installSameOriginGuard } from './same-origin-guard.js';
import { clearSessionCookie, sessionCookieFor, sessionIdFromCookieHeader, setSessionCookie, type SessionCookie } from './session-cookie.js';

/** The API's own body limit: nothing larger is worth forwarding. */
const BODY_LIMIT_BYTES = 256 * 1024;

const signInBodySchema = z.strictObject({ apiKey: z.string().min(1).max(200) });

export interface ConsoleServerOptions {
  fleet: FleetContext;
  /** Where the API of this process listens (loopback): the console forwards /api/v1/… there. */
  apiUrl: string;
  /** Log requests through the fleet's logger (default: off). */
  logger?: boolean;
  /** Adds hooks before the server is sealed (the process counts requests here). */
  extend?: (app: FastifyInstance) => void;
}

/** What the page learns about its session and the fleet: never the key itself. */
interface SessionView {
  keyId: string;
  tenant: string;
  scopes: string[];
  sitesUrl: string;
  traceUrlTemplate: string | null;
}

/** Builds the console server (not listening: the caller listens and closes it). */
export async function buildConsoleServer(options: ConsoleServerOptions): Promise<FastifyInstance> {
  const { fleet, apiUrl } = options;
  const config = fleet.config;
  const assets = loadConsoleAssets();
  const sessions = new ConsoleSessionStore({ redis: fleet.redis, prefix: fleet.store.keys.prefix, ttlSeconds: config.BUILDFLEET_CONSOLE_SESSION_TTL_SECONDS });
  const keyStore = new ApiKeyStore({ redis: fleet.redis, keys: fleet.store.keys });
  const publicUrl = config.BUILDFLEET_CONSOLE_PUBLIC_URL;
  const cookie: SessionCookie = sessionCookieFor(consoleBaseUrlOf(config));
  const openUpstreams: OpenUpstreams = new Set();

  const app: FastifyInstance = Fastify({
    ...(options.logger ? { loggerInstance: fleet.logger.child({ component: 'console' }) } : { logger: false }),
    bodyLimit: BODY_LIMIT_BYTES,
    requestIdHeader: false,
  }) as unknown as FastifyInstance;

  installConsoleSecurityHeaders(app);
  // Behind a proxy or TLS the public origin is the one browsers send. Without one, the origin is
  // the address the browser used (localhost and 127.0.0.1 both work): a page that names the
  // console's address by another host name (DNS rebinding) does get past this, but its requests
  // carry no cookie — the browser keeps cookies per host — so they act as nobody.
  installSameOriginGuard({ app, consoleOrigin: (request) => (publicUrl ? new URL(publicUrl).origin : `http://${request.headers.host ?? ''}`) });
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ConsoleError) return reply.code(error.statusCode).send(error.toBody());
    const statusCode = (error as { statusCode?: number }).statusCode;
    // Fastify's own client errors (a body too large, bad JSON) keep their status and message.
    if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
      return reply.code(statusCode).send({ error: { code: (error as { code?: string }).code ?? 'console_bad_request', message: (error as Error).message } });
    }
    request.log.error({ err: error }, 'console request failed');
    return reply.code(500).send({ error: { code: 'internal', message: 'The console failed to answer; see its log.' } });
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(new ConsoleError('console_not_found').toBody()));
  // Closing ends the forwarded event streams instead of waiting for their runs to end.
  app.addHook('preClose', async () => {
    for (const upstream of openUpstreams) upstream.destroy();
  });

  /** The session of a request, or null; a stored session that is unusable is deleted and logged. */
  async function sessionOf(request: FastifyRequest): Promise<{ id: string; session: ConsoleSession } | null> {
    const id = sessionIdFromCookieHeader({ cookie, header: request.headers.cookie });
    if (id === null) return null;
    try {
      const session = await sessions.read(id);
      return session ? { id, session } : null;
    } catch (error) {
      if (!(error instanceof StoredConsoleSessionInvalid)) throw error;
      request.log.warn({ err: error.message }, 'console session unusable; signed out');
      return null;
    }
  }

  function requireSession(found: { id: string; session: ConsoleSession } | null, reply: FastifyReply): { id: string; session: ConsoleSession } {
    if (found) {
      // The session's Redis TTL was just renewed (GETEX); the cookie's lifetime slides with it, so
      // an active user is not signed out a fixed time after signing in.
      reply.header('set-cookie', setSessionCookie({ cookie, sessionId: found.id, maxAgeSeconds: config.BUILDFLEET_CONSOLE_SESSION_TTL_SECONDS }));
      return found;
    }
    reply.header('set-cookie', clearSessionCookie(cookie));
    throw new ConsoleError('console_not_signed_in');
  }

  const sendAsset = (reply: FastifyReply, asset: ConsoleAsset) =>
    // Revalidated on every load: a new build is seen at once (the files are small).
    reply.type(asset.contentType).header('cache-control', 'no-cache').send(asset.body);

  app.get('/', async (_request, reply) => sendAsset(reply, assets.get('index.html')!));
  app.get('/assets/:name', async (request, reply) => {
    const asset = assets.get((request.params as { name: string }).name);
    if (!asset) throw new ConsoleError('console_not_found');
    return sendAsset(reply, asset);
  });

  // The session: JSON parsed here (the sign-in body), unlike /api where bodies pass through as bytes.
  app.get('/session', async (request, reply): Promise<SessionView> => {
    const { session } = requireSession(await sessionOf(request), reply);
    return viewOf(session);
  });
  app.post('/session', async (request, reply) => {
    const parsed = signInBodySchema.safeParse(request.body);
    if (!parsed.success) throw new ConsoleError('console_invalid_body');
    const verified = await keyStore.verify(parsed.data.apiKey.trim());
    if (!verified) throw new ConsoleError('console_sign_in_refused');
    // A new id at every sign-in: a cookie planted before it (session fixation) gains nothing.
    const previous = sessionIdFromCookieHeader({ cookie, header: request.headers.cookie });
    if (previous) await sessions.delete(previous);
    const sessionId = await sessions.create({ apiKey: parsed.data.apiKey.trim(), keyId: verified.keyId, tenant: verified.tenant, scopes: verified.scopes });
    request.log.info({ keyId: verified.keyId, tenant: verified.tenant }, 'console sign-in');
    reply.code(201).header('set-cookie', setSessionCookie({ cookie, sessionId, maxAgeSeconds: config.BUILDFLEET_CONSOLE_SESSION_TTL_SECONDS }));
    return viewOf(verified);
  });
  app.delete('/session', async (request, reply) => {
    const id = sessionIdFromCookieHeader({ cookie, header: request.headers.cookie });
    if (id) await sessions.delete(id);
    return reply.code(204).header('set-cookie', clearSessionCookie(cookie)).send();
  });

  await app.register(async (scope) => {
    // Bodies go to the API byte for byte: the API validates them and names what is wrong.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.all('/api/*', async (request, reply) => {
      const path = request.url.slice('/api'.length);
      if (!path.startsWith('/v1/')) throw new ConsoleError('console_path_not_forwarded');
      const { id, session } = requireSession(await sessionOf(request), reply);
      const response = await forwardToApi({ request, reply, apiUrl, path, apiKey: session.apiKey, openUpstreams });
      // The API refused the key (revoked since sign-in): the session is worth nothing any more.
      if (response.statusCode === 401) {
        await sessions.delete(id);
        reply.header('set-cookie', clearSessionCookie(cookie));
      }
      return reply.send(response);
    });
  });

  // Bull Board for admin sessions (bull-board.ts): the fleet's four queues of every shard, read-only.
  await mountBullBoard({
    app,
    queues: fleet.queues.all().flatMap((shard, index, shards) =>
      // Shard 0 alone keeps the plain names; with shards, each name says its shard.
      [shard.model, shard.tool, shard.webhook, shard.archive].map((queue) => ({ queue, label: shards.length > 1 ? `shard ${index} · ` : '' })),
    ),
    async refusalOf(request, reply) {
      const found = await sessionOf(request);
      if (!found) {
        reply.header('set-cookie', clearSessionCookie(cookie));
        return new ConsoleError('console_not_signed_in');
      }
      // The key store, not the session's copy, decides: a key revoked since sign-in ends the
      // session here as the API's 401 ends it on the forward.
      const verified = await keyStore.verify(found.session.apiKey);
      if (!verified) {
        await sessions.delete(found.id);
        reply.header('set-cookie', clearSessionCookie(cookie));
        return new ConsoleError('console_not_signed_in');
      }
      return verified.scopes.includes('admin')
        ? null
        : new ConsoleError(
            'console_admin_only',
            `Bull Board (${BULL_BOARD_PATH}) needs a key with the admin scope; this session's key has ${verified.scopes.join(', ')}.`,
          );
    },
  });

  function viewOf(session: Pick<ConsoleSession, 'keyId' | 'tenant' | 'scopes'>): SessionView {
    return {
      keyId: session.keyId,
      tenant: session.tenant,
      scopes: [...session.scopes],
      sitesUrl: fleet.sitesBaseUrl,
      traceUrlTemplate: config.BUILDFLEET_TRACE_URL_TEMPLATE ?? null,
    };
  }

  options.extend?.(app);
  await app.ready();
  return app;
}
