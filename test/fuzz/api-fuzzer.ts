// The API under hostile input: starts its own API in this process (real Redis, a private key
// prefix, loopback only) and sends it random and mutated requests — bodies, headers (huge,
// malformed, unicode, duplicate), path parameters (traversal, unicode, very long), methods,
// content types and query strings, some as raw bytes no HTTP client would send. Any 5xx answer,
// uncaught exception or unhandled rejection, or the server no longer answering, is a failure.
import { writeWorkspaceFile } from '../../src/engine/index.js';
import { randomBytes } from 'node:crypto';
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApiServer } from '../../src/api/api-server.js';
import { toApiError } from '../../src/api/to-api-error.js';
import { ApiKeyStore } from '../../src/auth/api-key-store.js';
import { loadConfig } from '../../src/config.js';
import { createFleetContext, type FleetContext } from '../../src/fleet/fleet-context.js';
import { siteStoreOf } from '../../src/sites/site-store-of-config.js';
import { seedDeployment } from '../support/seed-deployment.js';
import { deeplyNested, FuzzRandom, randomJson, randomSegment, randomString } from './fuzz-random.js';

export interface ApiFuzzOptions {
  redisUrl: string;
  requests: number;
  seed: number;
  /** Stop sending new requests after this long. */
  maxDurationMs: number;
  concurrency?: number;
  log?: (line: string) => void;
}

export interface ApiFuzzReport {
  seed: number;
  requests: number;
  byStatusClass: Record<'2xx' | '3xx' | '4xx' | '5xx' | 'no answer', number>;
  /** Every 5xx answer, with the request that caused it. */
  serverErrors: string[];
  /** A sample of requests the server closed without an answer (e.g. a body still being sent
   * after a 413 was answered, or bytes that are not HTTP), for the report. */
  unanswered: string[];
  /** Uncaught exceptions, unhandled rejections, and the server not answering. */
  crashes: string[];
  durationMs: number;
}

interface FuzzTarget {
  port: number;
  keys: { admin: string; reader: string; writer: string };
  runIds: string[];
  foreignRunId: string;
}

type Outcome = { status: number | null; description: string; refused?: boolean };

const METHODS = ['GET', 'GET', 'GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];
const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/jsonx',
  '*/*',
  ';;;',
  '',
];
const ACCEPTS = ['application/json', 'text/event-stream', '*/*', 'text/html', 'application/json, text/event-stream', 'garbage/;;'];

function pathFor(random: FuzzRandom, target: FuzzTarget): string {
  const runId = () => (random.chance(0.6) ? random.pick(target.runIds) : random.chance(0.3) ? target.foreignRunId : randomSegment(random));
  const wildcard = () => Array.from({ length: 1 + random.int(4) }, () => randomSegment(random)).join('/');
  const templates = [
    () => '/v1/runs',
    () => `/v1/runs/${runId()}`,
    () => `/v1/runs/${runId()}/events`,
    () => `/v1/runs/${runId()}/input`,
    () => `/v1/runs/${runId()}/cancel`,
    () => '/v1/admin/queues',
    () => '/v1/admin/killswitch',
    () => '/v1/admin/spend-limit',
    () => '/v1/admin/spend-limit/clear',
    () => `/sites/${runId()}`,
    () => `/sites/${runId()}/`,
    () => `/sites/${runId()}/${wildcard()}`,
    () => `/sites/${runId()}/d/${randomSegment(random)}/${wildcard()}`,
    () => `/sites/${runId()}/og-image.svg`,
    () => '/healthz',
    () => '/readyz',
    () => '/docs/json',
    () => `/${wildcard()}`,
    () => `/v1/${wildcard()}`,
  ];
  let path = random.pick(templates)();
  if (random.chance(0.35)) {
    const parameters = Array.from({ length: 1 + random.int(4) }, () => {
      const name = random.pick(['limit', 'cursor', 'status', 'after', 'limit', randomSegment(random)]);
      const value = random.pick(['0', '1', '100', '101', '-1', 'abc', '1e3', '', 'succeeded', 'queued', '1700000000000-0', randomSegment(random)]);
      return `${name}=${value}`;
    });
    path += `?${parameters.join('&')}`;
  }
  if (random.chance(0.05)) path += `?${'q'.repeat(random.int(12_000))}`;
  return path;
}

function bodyFor(random: FuzzRandom): string | Buffer | undefined {
  const kind = random.int(12);
  switch (kind) {
    case 0:
    case 1:
      return undefined;
    case 2:
    case 3: {
      // A plausible create body with one field mutated.
      const body: Record<string, unknown> = { prompt: random.chance(0.8) ? 'Build a bakery site' : randomString(random, 200) };
      if (random.chance(0.4)) body.maxTurns = random.pick([1, 200, 0, 201, 1.5, '5', null]);
      if (random.chance(0.3)) body.model = random.pick(['claude-sonnet-4-6', '', 'x'.repeat(300), 42]);
      if (random.chance(0.3)) body.options = randomJson(random, 2);
      if (random.chance(0.2)) body[randomString(random, 10)] = randomJson(random, 1);
      return JSON.stringify(body);
    }
    case 4:
      return JSON.stringify({ text: random.chance(0.5) ? 'an answer' : randomString(random, 200) });
    case 5:
      return JSON.stringify({ mode: random.pick(['read_only', 'read_write', 'off', '']), reason: randomString(random, 50) });
    case 6:
      return JSON.stringify(randomJson(random, 4));
    case 7:
      return deeplyNested(random.pick([100, 1_000, 10_000, 100_000]));
    case 8:
      return random.pick(['{', '{"prompt":', '{"prompt":"x",}', "{'prompt':'x'}", '{"__proto__":{"x":1},"prompt":"x"}', '{"constructor":{"prototype":{"x":1}}}', 'null', '[]', '"x"', '1', 'NaN', '\u0000']);
    case 9:
      return randomBytes(random.int(2_000));
    case 10:
      return JSON.stringify({ prompt: 'p'.repeat(random.pick([19_999, 20_000, 20_001, 100_000, 300_000])) });
    default:
      return randomString(random, 500);
  }
}

function headersFor(random: FuzzRandom, target: FuzzTarget, hasBody: boolean): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  const auth = random.int(10);
  if (auth < 5) headers.authorization = `Bearer ${target.keys.admin}`;
  else if (auth === 5) headers.authorization = `Bearer ${target.keys.reader}`;
  else if (auth === 6) headers.authorization = `Bearer ${target.keys.writer}`;
  else if (auth === 7) headers.authorization = random.pick(['Bearer', 'Basic eDp5', `Bearer ${'a'.repeat(5_000)}`, 'Bearer bf_' + 'x'.repeat(43), `Bearer ${target.keys.admin} extra`]);
  // Duplicate Authorization headers (Node keeps the first).
  else if (auth === 8) (headers as Record<string, string[]>).authorization = [`Bearer ${target.keys.reader}`, `Bearer ${target.keys.admin}`];
  // Duplicate Content-Type headers now and then (an array, as Node sends repeated headers).
  if (hasBody || random.chance(0.2)) (headers as Record<string, string | string[]>)['content-type'] = random.chance(0.1) ? [random.pick(CONTENT_TYPES), random.pick(CONTENT_TYPES)] : random.pick(CONTENT_TYPES);
  if (random.chance(0.3)) headers.accept = random.pick(ACCEPTS);
  if (random.chance(0.2)) headers['idempotency-key'] = random.chance(0.5) ? `fuzz-${random.int(20)}` : random.pick(['', ' ', 'a'.repeat(201), 'has space', '%00']);
  if (random.chance(0.1)) headers['last-event-id'] = random.pick(['1-0', 'abc', '99999999999999999999-1', '']);
  if (random.chance(0.1)) headers['x-filler'] = 'f'.repeat(random.pick([100, 8_000, 17_000, 40_000]));
  if (random.chance(0.05)) headers['x-forwarded-for'] = ['127.0.0.1', '10.0.0.1'];
  if (random.chance(0.05)) headers['transfer-encoding'] = 'chunked';
  return headers;
}

/** One request through node:http: status as soon as the head arrives (event streams stay open). */
function sendStructured(port: number, method: string, path: string, headers: OutgoingHttpHeaders, body: string | Buffer | undefined): Promise<Outcome> {
  const description = `${method} ${path.slice(0, 200)} ${JSON.stringify(headers).slice(0, 300)} body=${body === undefined ? 'none' : `${String(body).slice(0, 120)} (${body.length})`}`;
  return new Promise((resolve) => {
    let done = false;
    const finish = (outcome: Outcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    let outgoing: ReturnType<typeof httpRequest>;
    // Kept from the head, since the client may still fail afterwards (a 431 that carries a body
    // for a HEAD request, the server closing while a body is still being sent).
    let answered: number | null = null;
    try {
      outgoing = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (incoming) => {
        const status = incoming.statusCode ?? null;
        answered = status;
        const isStream = String(incoming.headers['content-type'] ?? '').includes('text/event-stream');
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => {
          if (chunks.length < 8) chunks.push(chunk);
        });
        incoming.on('error', () => undefined);
        if (isStream) {
          incoming.destroy();
          finish({ status, description });
          return;
        }
        incoming.on('end', () => finish({ status, description: `${description} → ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}` }));
        incoming.on('close', () => finish({ status, description }));
      });
    } catch (error) {
      // The client itself refused to send this (invalid header characters): nothing to learn.
      resolve({ status: -1, description: `${description} (client refused: ${(error as Error).message})` });
      return;
    }
    const timer = setTimeout(() => {
      outgoing.destroy();
      finish({ status: null, description: `${description} (no answer within 5 s)` });
    }, 5_000);
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      finish({ status: answered, description: `${description} (${error.code ?? error.message})`, refused: error.code === 'ECONNREFUSED' }),
    );
    if (body !== undefined) outgoing.end(body);
    else outgoing.end();
  });
}

function rawRequests(random: FuzzRandom, target: FuzzTarget): Buffer {
  const auth = `Authorization: Bearer ${target.keys.admin}\r\n`;
  const id = random.pick(target.runIds);
  const options = [
    'GARBAGE\r\n\r\n',
    'GET / HTTP/1.1\r\nHost: x\r\nX-Bad Header: y\r\n\r\n',
    'GET /healthz HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n',
    'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Nul: a\u0000b\r\n\r\n',
    `GET /v1/runs HTTP/1.1\r\nHost: x\r\n${auth}X-Unicode: ${'é🥐'.repeat(random.int(50) + 1)}\r\nConnection: close\r\n\r\n`,
    `GET /v1/runs/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'\u00ff\u00fe'.repeat(30)}\r\nConnection: close\r\n\r\n`,
    `POST /v1/runs HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 9\r\n\r\n{"a":1}`,
    `POST /v1/runs HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n`,
    `POST /v1/runs HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    `POST /v1/runs HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}GET /healthz HTTP/1.1\r\n\r\n`,
    'GET /\r\n\r\n',
    'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
    `GET /${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    'FOO /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
    'GET http://evil.example/v1/runs HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n',
    'GET /healthz HTTP/1.1\nHost: x\n\n',
    `POST /v1/runs HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 20\r\nConnection: close\r\n\r\n{"prompt":"expect"}`,
    'GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n',
    `GET /sites/${id}/..%2f..%2f..%2fv1%2fruns HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    `GET /sites/${id}/../../v1/runs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    `GET /v1/runs/${id}/events HTTP/1.1\r\nHost: x\r\n${auth}Last-Event-ID: \u00ff\r\nConnection: close\r\n\r\n`,
    `${'X'.repeat(random.int(64) + 1)} / HTTP/1.1\r\nHost: x\r\n\r\n`,
  ];
  return Buffer.from(random.pick(options), 'latin1');
}

/** Writes raw bytes and reads whatever comes back within 3 s. */
function sendRaw(port: number, bytes: Buffer): Promise<Outcome> {
  const description = `raw ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`;
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (refused = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1];
      resolve({ status: status ? Number(status) : null, description: `${description} → ${text.slice(0, 200)}`, refused });
    };
    const timer = setTimeout(() => finish(), 3_000);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // Once a whole head has arrived the status is known; the rest does not matter.
      if (Buffer.concat(chunks).includes('\r\n\r\n')) finish();
    });
    socket.on('end', () => finish());
    socket.on('error', (error: NodeJS.ErrnoException) => finish(error.code === 'ECONNREFUSED'));
  });
}

async function prepareTarget(fleet: FleetContext, app: FastifyInstance): Promise<FuzzTarget> {
  const keyStore = new ApiKeyStore({ redis: fleet.redis, keys: fleet.store.keys });
  const keys = {
    admin: (await keyStore.create({ tenant: 'fuzz', scopes: ['admin'] })).token,
    reader: (await keyStore.create({ tenant: 'fuzz', scopes: ['runs:read'] })).token,
    writer: (await keyStore.create({ tenant: 'fuzz', scopes: ['runs:write'] })).token,
  };
  const runIds: string[] = [];
  for (const status of ['running', 'waiting_for_input', 'succeeded'] as const) {
    const run = await fleet.store.createRun({ tenant: 'fuzz', prompt: 'fuzz target', model: 'm', maxTurns: 5, maxTokens: 100, options: {} });
    await writeWorkspaceFile({ engine: fleet.store, runId: run.id, path: 'index.html', content: '<html><head></head><body>fuzz</body></html>' });
    await seedDeployment({ engine: fleet.store, sites: siteStoreOf(fleet.config), runId: run.id, deployId: 'dep_fuzz' });
    await fleet.store.updateRun(run.id, { liveDeploy: 'dep_fuzz', meta: { title: 'Fuzz', description: 'fuzz' } });
    if (status === 'waiting_for_input') await fleet.store.updateRun(run.id, { status, question: { toolUseId: 'toolu_fuzz', question: 'Colour?', turn: 1 } });
    else if (status === 'succeeded') await fleet.store.endRun(run.id, 0, 'succeeded', { result: 'done' });
    else await fleet.store.updateRun(run.id, { status });
    runIds.push(run.id);
  }
  const foreign = await fleet.store.createRun({ tenant: 'other', prompt: 'not yours', model: 'm', maxTurns: 1, maxTokens: 1, options: {} });
  return { port: (app.server.address() as AddressInfo).port, keys, runIds, foreignRunId: foreign.id };
}

async function deletePrefix(fleet: FleetContext, prefix: string): Promise<void> {
  for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) {
    let cursor = '0';
    do {
      const [next, found] = await fleet.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (found.length > 0) await fleet.redis.unlink(...found);
    } while (cursor !== '0');
  }
}

/** Runs the fuzz against a fresh in-process API and returns the figures. */
export async function runApiFuzz(options: ApiFuzzOptions): Promise<ApiFuzzReport> {
  const log = options.log ?? (() => undefined);
  const random = new FuzzRandom(options.seed);
  const prefix = `fuzz${randomBytes(4).toString('hex')}`;
  const fleet = createFleetContext(
    loadConfig({ REDIS_URL: options.redisUrl, BUILDFLEET_PREFIX: prefix, LOG_LEVEL: 'silent', BUILDFLEET_PUBLIC_URL: 'http://127.0.0.1:9' }),
    'api',
  );
  const crashes: string[] = [];
  const serverErrors: string[] = [];
  const internalErrors: string[] = [];
  const onUncaught = (error: unknown) => crashes.push(`uncaught exception: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  const onUnhandled = (reason: unknown) => crashes.push(`unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUnhandled);
  const app = await buildApiServer(fleet, {
    heartbeatMs: 1_000,
    extend: (server) => {
      // The stack of whatever became a 5xx, for the report.
      server.addHook('onError', async (_request, _reply, error) => {
        if (toApiError(error).statusCode >= 500 && internalErrors.length < 20) internalErrors.push(error.stack ?? error.message);
      });
    },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const report: ApiFuzzReport = {
    seed: options.seed,
    requests: 0,
    byStatusClass: { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0, 'no answer': 0 },
    serverErrors,
    unanswered: [],
    crashes,
    durationMs: 0,
  };
  const started = Date.now();
  try {
    const target = await prepareTarget(fleet, app);
    let issued = 0;
    let refusedInARow = 0;
    const lane = async () => {
      while (issued < options.requests && Date.now() - started < options.maxDurationMs && crashes.length === 0) {
        issued += 1;
        const outcome = random.chance(0.12)
          ? await sendRaw(target.port, rawRequests(random, target))
          : await (() => {
              const method = random.pick(METHODS);
              const body = method === 'GET' || method === 'HEAD' ? (random.chance(0.05) ? bodyFor(random) : undefined) : bodyFor(random);
              return sendStructured(target.port, method, pathFor(random, target), headersFor(random, target, body !== undefined), body);
            })();
        if (outcome.status === -1) {
          issued -= 1;
          continue;
        }
        report.requests += 1;
        if (outcome.refused) {
          refusedInARow += 1;
          if (refusedInARow >= 5) crashes.push(`the server stopped accepting connections (last: ${outcome.description})`);
        } else refusedInARow = 0;
        const status = outcome.status;
        if (status === null) {
          report.byStatusClass['no answer'] += 1;
          if (report.unanswered.length < 20) report.unanswered.push(outcome.description);
        }
        else if (status >= 500) {
          report.byStatusClass['5xx'] += 1;
          if (serverErrors.length < 50) serverErrors.push(`${status}: ${outcome.description}`);
        } else if (status >= 400) report.byStatusClass['4xx'] += 1;
        else if (status >= 300) report.byStatusClass['3xx'] += 1;
        else report.byStatusClass['2xx'] += 1;
        if (report.requests % 1000 === 0) log(`  ${report.requests} requests, ${report.byStatusClass['5xx']} 5xx, ${Math.round((Date.now() - started) / 1000)} s`);
      }
    };
    await Promise.all(Array.from({ length: options.concurrency ?? 16 }, lane));
    // Still alive and still right after all that.
    const health = await sendStructured(target.port, 'GET', '/healthz', {}, undefined);
    if (health.status !== 200) crashes.push(`GET /healthz answered ${health.status} after the fuzz`);
    const view = await sendStructured(target.port, 'GET', `/v1/runs/${target.runIds[0]}`, { authorization: `Bearer ${target.keys.admin}` }, undefined);
    if (view.status !== 200) crashes.push(`GET /v1/runs/:id answered ${view.status} after the fuzz`);
  } finally {
    report.durationMs = Date.now() - started;
    for (const error of internalErrors) if (serverErrors.length < 60) serverErrors.push(`server-side: ${error}`);
    await app.close();
    await deletePrefix(fleet, prefix).catch(() => undefined);
    await fleet.close();
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUnhandled);
  }
  return report;
}
