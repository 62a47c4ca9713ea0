// Bodies must be UTF-8 JSON, and a request carries one credential: over a real listening server on
// loopback (raw sockets where an HTTP client would tidy the request up), invalid UTF-8, a byte
// order mark and a charset other than utf-8 are refused with their own codes and create nothing;
// two Authorization headers are refused whichever of them is valid.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiTestHarness, type ApiTestHarness } from '../../src/api/testing/api-test-harness.js';

let harness: ApiTestHarness;
let baseUrl: string;

beforeAll(async () => {
  harness = await createApiTestHarness({ label: 'reqharden' });
  baseUrl = await harness.listen();
});

afterAll(async () => {
  await harness.close();
});

/** Sends bytes as they are and returns the status line's code, the headers and the body. */
async function rawRequest(head: string, body: Buffer = Buffer.alloc(0)): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write(Buffer.concat([Buffer.from(head.replace(/\n/g, '\r\n')), body]));
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const text = Buffer.concat(chunks).toString('utf8');
  const [headers = '', responseBody = ''] = text.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]), headers: headers.toLowerCase(), body: responseBody };
}

async function runCount(): Promise<number> {
  const response = await fetch(`${baseUrl}/v1/runs?limit=100`, { headers: harness.auth });
  return ((await response.json()) as { runs: unknown[] }).runs.length;
}

function postRun(body: Buffer, contentType = 'application/json'): Promise<Response> {
  return fetch(`${baseUrl}/v1/runs`, { method: 'POST', headers: { ...harness.auth, 'content-type': contentType }, body });
}

async function codeOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

describe('request bodies are UTF-8 JSON', () => {
  it('refuses bytes that are not UTF-8 with 400 invalid_body_encoding, and creates nothing', async () => {
    const before = await runCount();
    for (const bytes of [
      Buffer.concat([Buffer.from('{"prompt":"Caf'), Buffer.from([0xe9]), Buffer.from(' site"}')]), // Latin-1 é
      Buffer.concat([Buffer.from('{"prompt":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]), // overlong '/'
      Buffer.concat([Buffer.from('{"prompt":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]), // a surrogate
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"prompt":"A bakery"}', 'utf16le')]), // UTF-16 with its BOM
    ]) {
      const response = await postRun(bytes);
      expect(response.status).toBe(400);
      expect(await codeOf(response)).toBe('invalid_body_encoding');
    }
    expect(await runCount()).toBe(before);
  });

  it('refuses a byte order mark with 400 invalid_body_encoding', async () => {
    const response = await postRun(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"prompt":"A bakery"}')]));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: 'invalid_body_encoding', message: expect.stringContaining('byte order mark') } });
  });

  it('refuses a charset other than utf-8 with 415 unsupported_charset', async () => {
    const before = await runCount();
    for (const contentType of ['application/json; charset=utf-16', 'application/json;charset="UTF-16LE"', 'application/json; charset=iso-8859-1']) {
      const response = await postRun(Buffer.from('{"prompt":"A bakery"}'), contentType);
      expect(response.status, contentType).toBe(415);
      expect(await codeOf(response)).toBe('unsupported_charset');
    }
    expect(await runCount()).toBe(before);
  });

  it('takes UTF-8 JSON with no charset or with charset utf-8 in any spelling', async () => {
    for (const contentType of ['application/json', 'application/json; charset=utf-8', 'application/json; charset="UTF-8"', 'Application/JSON;Charset=utf8']) {
      const response = await postRun(Buffer.from(JSON.stringify({ prompt: 'Un café à Zürich — 🍞' })), contentType);
      expect(response.status, contentType).toBe(202);
      const { id } = (await response.json()) as { id: string };
      expect((await harness.fleet.store.getRun(id))?.prompt).toBe('Un café à Zürich — 🍞');
    }
  });

  it('still answers other media types 415 unsupported_media_type', async () => {
    const response = await postRun(Buffer.from('prompt=x'), 'application/x-www-form-urlencoded');
    expect(response.status).toBe(415);
    expect(await codeOf(response)).toBe('unsupported_media_type');
  });
});

describe('one Authorization header per request', () => {
  it('refuses two with 400 duplicate_authorization, whichever comes first', async () => {
    const valid = `Bearer ${harness.apiKey}`;
    for (const [first, second] of [
      [valid, 'Bearer bf_someoneelsesKeyxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
      ['Bearer bf_someoneelsesKeyxxxxxxxxxxxxxxxxxxxxxxxxxxx', valid],
      [valid, valid],
    ]) {
      const response = await rawRequest(`GET /v1/runs HTTP/1.1\nHost: x\nAuthorization: ${first}\nauthorization: ${second}\nConnection: close\n\n`);
      expect(response.status).toBe(400);
      expect(response.headers).toContain('www-authenticate: bearer realm="buildfleet", error="invalid_request"');
      expect(JSON.parse(response.body)).toEqual({ error: { code: 'duplicate_authorization', message: 'Send exactly one Authorization header.' } });
    }
  });

  it('refuses before the body is read, and one header still works', async () => {
    const body = Buffer.from(JSON.stringify({ prompt: 'A bakery' }));
    const refused = await rawRequest(
      `POST /v1/runs HTTP/1.1\nHost: x\nAuthorization: Bearer ${harness.apiKey}\nAuthorization: Bearer ${harness.apiKey}\nContent-Type: application/json\nContent-Length: ${body.length}\nConnection: close\n\n`,
      body,
    );
    expect(refused.status).toBe(400);
    const single = await rawRequest(`GET /v1/runs HTTP/1.1\nHost: x\nAuthorization: Bearer ${harness.apiKey}\nConnection: close\n\n`);
    expect(single.status).toBe(200);
  });
});
