import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultyUpstream, UPSTREAM_FAULTS, UPSTREAM_PNG, type FaultyUpstream } from './faulty-upstream.js';

let upstream: FaultyUpstream;
beforeAll(async () => {
  upstream = await startFaultyUpstream({ oversizedBytes: 300_000 });
});
afterAll(async () => upstream.close());

async function get(path: string): Promise<{ status: number; type: string | null; body: Buffer }> {
  const response = await fetch(`${upstream.origin}${path}`);
  return { status: response.status, type: response.headers.get('content-type'), body: Buffer.from(await response.arrayBuffer()) };
}

describe('the faulty upstream', () => {
  it('serves valid bodies by extension while valid', async () => {
    expect(await get('/a/logo.png')).toMatchObject({ status: 200, type: 'image/png', body: UPSTREAM_PNG });
    expect((await get('/a/logo.svg')).type).toBe('image/svg+xml');
    expect((await get('/a/photo.jpg')).body.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    expect(JSON.parse((await get('/data.json')).body.toString())).toMatchObject({ ok: true, data: { images: [{ width: 1200 }] } });
    expect((await get('/')).type).toContain('text/html');
  });

  it.each(UPSTREAM_FAULTS.map((fault) => [fault]))('serves the %s fault on its own path', async (fault) => {
    const response = await get(`/fault/${fault}`);
    expect(response.status).toBe(200);
    expect(response.body.length).toBeGreaterThan(0);
  });

  it('serves the faults as described', async () => {
    expect((await get('/fault/maintenance')).type).toContain('text/html');
    await expect(get('/fault/truncated_json').then((response) => JSON.parse(response.body.toString()))).rejects.toThrow();
    expect((await get('/fault/missing_content_type')).type).toBeNull();
    expect((await get('/fault/oversized.png')).body.length).toBe(300_000);
    expect((await get('/fault/oversized.png')).body.subarray(0, 8)).toEqual(UPSTREAM_PNG.subarray(0, 8));
    expect((await get('/fault/nope')).status).toBe(404);
  });

  it('flips every ordinary path at once, in process and over HTTP', async () => {
    upstream.setMode('broken', 'maintenance');
    expect((await get('/a/logo.png')).type).toContain('text/html');
    expect((await get('/valid/png')).type).toBe('image/png');
    const switched = await fetch(`${upstream.origin}/_upstream/mode?mode=broken&fault=invalid_png`, { method: 'POST' });
    expect(await switched.json()).toEqual({ mode: 'broken', fault: 'invalid_png' });
    expect((await get('/a/logo.png')).body.toString()).toContain('Service unavailable');
    upstream.setMode('valid');
    expect((await get('/a/logo.png')).type).toBe('image/png');
    expect(upstream.requests.some((request) => request.served === 'invalid_png')).toBe(true);
  });
});
