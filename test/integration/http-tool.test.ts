// An HTTP tool through the real tool queue and tool workers (issue #33 item 2): the builder's
// set_meta served by an operator's service on loopback instead of the fleet's own code. The call
// is made once and its result recorded once; an unknown outcome (503) is attempted again with the
// same idempotency key; a maintenance page fails closed and, from two tenants, trips the kill
// switch for that service alone.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolInputSchemas } from '../../src/domain/tool-input-schemas.js';
import { defineHttpTool, HTTP_TOOL_HEADERS } from '../../src/tools/http-tool/define-http-tool.js';
import { toolImplementations } from '../../src/tools/tool-implementations.js';
import { startToolOutputFleet, type ToolOutputFleet } from '../support/tool-output-fleet.js';

/** What the service answers next, per call's idempotency key: a queue of answers, then `ok`. */
const scripted = new Map<string, Array<'busy' | 'maintenance'>>();
let maintenance = false;
const requests: Array<{ key: string; body: string }> = [];
let service: Server;
let serviceOrigin: string;
let harness: ToolOutputFleet;
const builtIn = toolImplementations.set_meta;

beforeAll(async () => {
  service = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const key = String(request.headers[HTTP_TOOL_HEADERS.idempotencyKey]);
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ key, body });
      const next = scripted.get(key)?.shift() ?? (maintenance ? 'maintenance' : 'ok');
      if (next === 'busy') return void response.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      if (next === 'maintenance') return void response.writeHead(200, { 'content-type': 'text/html' }).end('<html>Down for maintenance</html>');
      const { input } = JSON.parse(body) as { input: { title: string } };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ saved: true, title: input.title }));
    });
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  serviceOrigin = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  harness = await startToolOutputFleet({
    label: 'httptoolqueue',
    env: {
      BUILDFLEET_FETCH_ALLOWLIST: serviceOrigin,
      BUILDFLEET_WEBHOOK_SECRET: 's'.repeat(64),
      // An upstream trips when two tenants spike on it; the fleet would need three.
      BUILDFLEET_KILLSWITCH_MIN_VOLUME: '2',
      BUILDFLEET_KILLSWITCH_THRESHOLD: '0.5',
      BUILDFLEET_KILLSWITCH_UPSTREAM_MIN_TENANTS: '2',
      BUILDFLEET_KILLSWITCH_FLEET_MIN_TENANTS: '3',
    },
  });
  toolImplementations.set_meta = defineHttpTool({
    name: 'set_meta',
    description: 'Saves the site title and description in the CMS.',
    inputSchema: toolInputSchemas.set_meta,
    url: `${serviceOrigin}/save`,
    effect: 'write',
    output: { schema: z.strictObject({ saved: z.literal(true), title: z.string() }), mode: 'fail_closed' },
  });
});
afterAll(async () => {
  toolImplementations.set_meta = builtIn;
  await harness?.close();
  service.closeAllConnections();
  await new Promise((resolve) => service.close(resolve));
});

const meta = { title: 'Harbor Lights', description: 'A bakery by the harbour.' };

async function runOf(tenant: string) {
  const run = await harness.fleet.store.createRun({ tenant, prompt: 'a bakery', model: 'test', maxTurns: 40, maxTokens: 4096, options: {} });
  await harness.fleet.store.updateRun(run.id, { phase: 'verifying', status: 'running' });
  return run;
}

describe('an HTTP tool in the tool queue', () => {
  it('makes its call once and records the answer once, however often the job is delivered', async () => {
    const run = await runOf('tenant-a');
    const before = requests.length;
    const result = await harness.callTool(run.id, 'set_meta', meta, { toolUseId: 'toolu_meta_once' });
    expect(result).toMatchObject({ is_error: false, output: { saved: true, title: 'Harbor Lights' } });
    // The same call delivered again: the recorded result, and no second request.
    const again = await harness.callTool(run.id, 'set_meta', meta, { toolUseId: 'toolu_meta_once' });
    expect(again).toEqual(result);
    expect(requests.slice(before)).toHaveLength(1);
  });

  it('attempts an unknown outcome again with the same key, unseen by the model', async () => {
    const run = await runOf('tenant-a');
    const { httpToolIdempotencyKey } = await import('../../src/tools/http-tool/define-http-tool.js');
    const key = httpToolIdempotencyKey(run.id, 'toolu_meta_busy');
    scripted.set(key, ['busy']);
    const result = await harness.callTool(run.id, 'set_meta', meta, { toolUseId: 'toolu_meta_busy' });
    expect(result).toMatchObject({ is_error: false, output: { saved: true } });
    expect(requests.filter((request) => request.key === key)).toHaveLength(2);
  });

  it('fails closed on a maintenance page, and two tenants of them trip the service, not the fleet', async () => {
    maintenance = true;
    try {
      for (const tenant of ['tenant-b', 'tenant-c']) {
        for (let call = 0; call < 2; call += 1) {
          const run = await runOf(tenant);
          const result = await harness.callTool(run.id, 'set_meta', meta);
          expect(result).toMatchObject({ is_error: true, error_code: 'ToolOutputInvalid', error_reason: 'unexpected_content_type:text/html' });
        }
      }
    } finally {
      maintenance = false;
    }
    const state = await harness.killSwitch.getState();
    const host = new URL(serviceOrigin).host;
    expect(state.mode).toBe('read_write');
    expect(state.scopes.map((scope) => `${scope.scopeId}:${scope.mode}`)).toContain(`upstream:set_meta:${host}:read_only`);
    // Each tenant whose own outputs were all invalid trips its own scope too; a tenant that called
    // nothing of it keeps writing.
    expect(state.scopes.filter((scope) => scope.scope.kind === 'tenant').map((scope) => scope.scopeId).sort()).toEqual(['tenant:tenant-b', 'tenant:tenant-c']);
    const bystander = await runOf('tenant-a');
    const write = await harness.callTool(bystander.id, 'write_file', { path: 'index.html', content: '<h1>Harbor Lights</h1>' });
    expect(write).toMatchObject({ is_error: false });
  });
});
