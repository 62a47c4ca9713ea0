// An HTTP tool against a real service on loopback: the signed, keyed POST the far side receives,
// what each kind of answer becomes (an output through the pipeline, a refusal the model reads, an
// unknown outcome the fleet attempts again with the same key), egress through the SSRF guard, and
// the definition checked when it is made.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { verifyWebhook, webhookSigningSecret } from '../../webhooks/webhook-signature.js';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { validateToolOutput } from '../output/validate-tool-output.js';
import { ToolOutputInvalid } from '../output/tool-output-invalid.js';
import { defineHttpTool, HTTP_TOOL_HEADERS, httpToolIdempotencyKey, HttpToolUnavailable, type HttpToolRequestBody } from './define-http-tool.js';

const FLEET_SECRET = 'f'.repeat(64);

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** The service: answers each path as told, records every request. */
let service: Server;
let origin: string;
const received: Received[] = [];
const answers: Record<string, { status: number; type?: string; body: string; hang?: boolean }> = {
  '/ok': { status: 200, type: 'application/json', body: JSON.stringify({ title: 'Harbor Lights', saved: true }) },
  '/refuse': { status: 422, type: 'application/json', body: JSON.stringify({ error: 'title too long <script>' }) },
  '/busy': { status: 503, type: 'text/plain', body: 'try later' },
  '/limited': { status: 429, type: 'text/plain', body: 'slow down' },
  '/maintenance': { status: 200, type: 'text/html', body: '<html><body>Down for maintenance</body></html>' },
  '/redirect': { status: 307, type: 'text/plain', body: '' },
  '/hang': { status: 200, body: '', hang: true },
};

let harness: ToolTestHarness;
beforeAll(async () => {
  service = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers[request.url ?? ''] ?? { status: 404, type: 'text/plain', body: 'no such path' };
      if (answer.hang) return;
      response.writeHead(answer.status, { ...(answer.type ? { 'content-type': answer.type } : {}), ...(answer.status === 307 ? { location: '/ok' } : {}) });
      response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  harness = await createToolTestHarness('httptool');
});
afterAll(async () => {
  service.closeAllConnections();
  await new Promise((resolve) => service.close(resolve));
  await harness.close();
});

const outputSchema = z.strictObject({ title: z.string(), saved: z.literal(true) });
const tool = (path: string, overrides: { effect?: 'read' | 'write'; timeoutMs?: number } = {}) =>
  defineHttpTool({
    name: 'save_title',
    description: 'Saves the site title in the CMS.',
    inputSchema: z.strictObject({ title: z.string().min(1).max(120) }),
    url: `${origin}${path}`,
    effect: overrides.effect ?? 'write',
    output: { schema: outputSchema, mode: 'fail_closed' },
    ...(overrides.timeoutMs ? { timeoutMs: overrides.timeoutMs } : {}),
  });

async function contextFor(toolUseId: string, allowlisted = true) {
  const run = await harness.store.createRun({ tenant: 'bakery', prompt: 'a bakery', model: 'test-model', maxTurns: 10, maxTokens: 1024, options: {} });
  return harness.contextFor(run.id, {
    toolUseId,
    config: { BUILDFLEET_WEBHOOK_SECRET: FLEET_SECRET, BUILDFLEET_FETCH_ALLOWLIST: allowlisted ? origin : '' },
  });
}

describe('an HTTP tool', () => {
  it('POSTs the call signed like a webhook, with a key the same for every attempt of the call', async () => {
    const context = await contextFor('toolu_http_1');
    const before = received.length;
    const output = await harness.call(tool('/ok'), { title: 'Harbor Lights' }, context);
    expect(output).toEqual({ title: 'Harbor Lights', saved: true });
    // The output passes the tool's contract as the tool job checks it.
    expect(validateToolOutput({ output, contract: tool('/ok').output, context: { runId: context.runId, toolUseId: 'toolu_http_1', input: {}, publicBaseUrl: '' } })).toEqual(output);

    const [request] = received.slice(before);
    const key = httpToolIdempotencyKey(context.runId, 'toolu_http_1');
    expect(key).toMatch(/^bfk_[0-9a-f]{40}$/);
    expect(request!.headers[HTTP_TOOL_HEADERS.idempotencyKey]).toBe(key);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request!.body) as HttpToolRequestBody).toEqual({ tool: 'save_title', run_id: context.runId, tool_use_id: 'toolu_http_1', idempotency_key: key, input: { title: 'Harbor Lights' } });
    // The service checks it with its tenant's webhook secret, as it checks a webhook delivery.
    const verification = verifyWebhook({
      secret: webhookSigningSecret({ fleetSecret: FLEET_SECRET, tenant: 'bakery' }),
      body: request!.body,
      timestampHeader: String(request!.headers[HTTP_TOOL_HEADERS.timestamp]),
      signatureHeader: String(request!.headers[HTTP_TOOL_HEADERS.signature]),
    });
    expect(verification).toEqual({ valid: true });
    expect(verifyWebhook({ secret: webhookSigningSecret({ fleetSecret: FLEET_SECRET, tenant: 'other' }), body: request!.body, timestampHeader: String(request!.headers[HTTP_TOOL_HEADERS.timestamp]), signatureHeader: String(request!.headers[HTTP_TOOL_HEADERS.signature]) })).toMatchObject({ valid: false });

    // Another attempt of the same call: the same key. Another call: another key.
    await harness.call(tool('/ok'), { title: 'Harbor Lights' }, context);
    expect(received.at(-1)!.headers[HTTP_TOOL_HEADERS.idempotencyKey]).toBe(key);
    expect(httpToolIdempotencyKey(context.runId, 'toolu_http_2')).not.toBe(key);
  });

  it('hands a refusal to the model as http_tool_rejected, quoting the answer as data', async () => {
    const context = await contextFor('toolu_http_3');
    await expect(harness.call(tool('/refuse'), { title: 'x' }, context)).rejects.toMatchObject({ code: 'http_tool_rejected', message: expect.stringMatching(/refused the call with 422: .*title too long/) });
    // POST follows no redirect: a 3xx is a refusal too.
    await expect(harness.call(tool('/redirect'), { title: 'x' }, context)).rejects.toMatchObject({ code: 'http_tool_rejected', message: expect.stringContaining('307') });
  });

  it('treats 5xx, 429 and no answer as an unknown outcome, attempted again by the fleet, never told to the model', async () => {
    const context = await contextFor('toolu_http_4');
    await expect(harness.call(tool('/busy'), { title: 'x' }, context)).rejects.toBeInstanceOf(HttpToolUnavailable);
    await expect(harness.call(tool('/limited'), { title: 'x' }, context)).rejects.toBeInstanceOf(HttpToolUnavailable);
    await expect(harness.call(tool('/hang', { timeoutMs: 1000 }), { title: 'x' }, context)).rejects.toBeInstanceOf(HttpToolUnavailable);
  });

  it('fails closed on an answer that is no JSON (a maintenance page with status 200)', async () => {
    const context = await contextFor('toolu_http_5');
    const error = await harness.call(tool('/maintenance'), { title: 'x' }, context).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ToolOutputInvalid);
    expect(error).toMatchObject({ reason: 'unexpected_content_type:text/html' });
  });

  it('reaches a loopback service only when the operator allowlisted it (the SSRF guard)', async () => {
    const context = await contextFor('toolu_http_6', false);
    await expect(harness.call(tool('/ok'), { title: 'x' }, context)).rejects.toMatchObject({ code: 'fetch_blocked' });
  });

  it('is refused when the fleet has no secret to sign with', async () => {
    const context = await contextFor('toolu_http_7');
    await expect(harness.call(tool('/ok'), { title: 'x' }, { ...context, config: { ...context.config, BUILDFLEET_WEBHOOK_SECRET: undefined } })).rejects.toThrow(/BUILDFLEET_WEBHOOK_SECRET, which is not set/);
  });

  it('is checked when it is defined: an http(s) URL without credentials, a timeout within bounds', () => {
    const base = { name: 'x', description: 'x', inputSchema: z.strictObject({}), effect: 'read' as const, output: { schema: z.unknown(), mode: 'fail_closed' as const } };
    expect(() => defineHttpTool({ ...base, url: 'not a url' })).toThrow(/is not an absolute URL/);
    expect(() => defineHttpTool({ ...base, url: 'ftp://files.example/' })).toThrow(/must be http\(s\)/);
    expect(() => defineHttpTool({ ...base, url: 'https://user:pw@cms.example/' })).toThrow(/must not carry credentials/);
    expect(() => defineHttpTool({ ...base, url: 'https://cms.example/', timeoutMs: 60_000 })).toThrow(/timeoutMs must be a whole number from 1000 to 55000/);
    expect(defineHttpTool({ ...base, url: 'https://cms.example/save' })).toMatchObject({ writes: false, idempotent: true, serviceUrl: 'https://cms.example/save' });
  });
});
