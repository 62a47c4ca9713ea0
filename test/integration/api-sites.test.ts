// The sites origin against real Redis: the live alias with its meta injection, immutable
// deployments, the generated og-image.svg, binary files, traversal attempts that must all be
// plain 404s, the sandboxing headers on every answer — and the API's origin, which serves no byte
// of a site and only redirects to the sites origin.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiTestHarness, type ApiTestHarness } from '../../src/api/testing/api-test-harness.js';
import { setRunAsset, type RunRecord } from '../../src/engine/index.js';
import { SITE_CONTENT_SECURITY_POLICY } from '../../src/api/sites/site-security-headers.js';

let harness: ApiTestHarness;
/** The sites origin, listening. */
let baseUrl: string;
/** The API's origin, listening. */
let apiUrl: string;
const SITES_ORIGIN = 'https://sites.example-usercontent.test';
let run: RunRecord;
const PNG_BYTES = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 3, 255]);
const INDEX_V1 = '<!doctype html><html><head><meta charset="utf-8"></head><body><h1>Crumb &amp; Co</h1></body></html>';
const INDEX_V2 = '<!doctype html><html><head><title>Own title</title><meta name="description" content="own"></head><body>v2</body></html>';

beforeAll(async () => {
  harness = await createApiTestHarness({ label: 'apisites' });
  baseUrl = await harness.listenSites();
  apiUrl = await harness.listen();
  run = await harness.newRun({ status: 'running' });
  const store = harness.fleet.store;
  await harness.writeFile(run.id, 'index.html', INDEX_V1);
  await harness.writeFile(run.id, 'css/site.css', 'body { color: red; }');
  await harness.writeFile(run.id, 'app.js', 'console.log(1)');
  await harness.writeFile(run.id, 'images/logo.png', `data:image/png;base64,${PNG_BYTES.toString('base64')}`);
  await harness.writeFile(run.id, 'about/index.html', '<html><head></head><body>About</body></html>');
  await harness.deploy(run.id, 'dep_v1');
  await harness.writeFile(run.id, 'index.html', INDEX_V2);
  await harness.deploy(run.id, 'dep_v2');
  await store.updateRun(run.id, {
    liveDeploy: 'dep_v1',
    meta: { title: 'Crumb & Co "Bakery"', description: 'Fresh <bread> daily & more' },
  });
});

afterAll(async () => {
  await harness.close();
});

const get = (url: string) => harness.sites.inject({ method: 'GET', url });

/** GET with the path sent byte for byte: fetch and inject both normalise dot segments (and
 * %2e%2e) on the client side, which would hide what the server does with them. */
function getRaw(path: string, origin = baseUrl): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: hostname, port, path, method: 'GET' }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: incoming.headers }));
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('live alias /sites/:runId/', () => {
  it('serves index.html with no-cache and injects escaped meta tags before </head>', async () => {
    const response = await get(`/sites/${run.id}/`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    const html = response.body;
    expect(html).toContain('<title>Crumb &amp; Co "Bakery"</title>');
    expect(html).toContain('<meta name="description" content="Fresh &lt;bread&gt; daily &amp; more">');
    expect(html).toContain('<meta property="og:title" content="Crumb &amp; Co &quot;Bakery&quot;">');
    expect(html).toContain('<meta property="og:description" content="Fresh &lt;bread&gt; daily &amp; more">');
    // No og:image while the site has none: a preview would fetch a 404 (the image's test adds one).
    expect(html).not.toContain('og:image');
    expect(html).toContain('<h1>Crumb &amp; Co</h1>');
    expect(html).not.toContain('<bread>');
  });

  it('serves nested index.html, CSS, JS and decoded binary files with their types', async () => {
    const about = await get(`/sites/${run.id}/about/`);
    expect(about.statusCode).toBe(200);
    expect(about.body).toContain('About');
    expect(about.body).toContain('og:title');

    const css = await get(`/sites/${run.id}/css/site.css`);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body).toBe('body { color: red; }');

    const js = await get(`/sites/${run.id}/app.js`);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');

    const png = await get(`/sites/${run.id}/images/logo.png`);
    expect(png.statusCode).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.rawPayload.equals(PNG_BYTES)).toBe(true);
  });

  it('redirects /sites/:runId to the trailing-slash root', async () => {
    const response = await get(`/sites/${run.id}`);
    expect(response.statusCode).toBe(301);
    expect(response.headers.location).toBe(`/sites/${run.id}/`);
  });

  it('follows the published deployment and leaves the page’s own tags alone', async () => {
    await harness.fleet.store.updateRun(run.id, { liveDeploy: 'dep_v2' });
    try {
      const html = (await get(`/sites/${run.id}/index.html`)).body;
      expect(html).toContain('v2');
      expect(html).toContain('<title>Own title</title>');
      expect(html).not.toContain('<title>Crumb');
      expect(html.match(/name="description"/g)).toHaveLength(1);
      expect(html).toContain('og:title');
    } finally {
      await harness.fleet.store.updateRun(run.id, { liveDeploy: 'dep_v1' });
    }
  });

  it('does not inject anything when the run has no meta', async () => {
    const plain = await harness.newRun({ status: 'running' });
    await harness.writeFile(plain.id, 'index.html', INDEX_V1);
    await harness.deploy(plain.id, 'dep_plain');
    await harness.fleet.store.updateRun(plain.id, { liveDeploy: 'dep_plain' });
    expect((await get(`/sites/${plain.id}/`)).body).toBe(INDEX_V1);
  });

  it('answers 404 site_not_published for a run that never published', async () => {
    const unpublished = await harness.newRun();
    const response = await get(`/sites/${unpublished.id}/`);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: { code: 'site_not_published', message: expect.any(String) } });
  });

  it('answers 404 site_file_not_found for a missing file', async () => {
    const response = await get(`/sites/${run.id}/nope.html`);
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('site_file_not_found');
  });
});

describe('deployments /sites/:runId/d/:deployId/', () => {
  it('serves the immutable snapshot with a year of caching and no injection', async () => {
    const v1 = await get(`/sites/${run.id}/d/dep_v1/`);
    expect(v1.statusCode).toBe(200);
    expect(v1.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(v1.body).toBe(INDEX_V1);
    const v2 = await get(`/sites/${run.id}/d/dep_v2/index.html`);
    expect(v2.body).toBe(INDEX_V2);
    const png = await get(`/sites/${run.id}/d/dep_v2/images/logo.png`);
    expect(png.rawPayload.equals(PNG_BYTES)).toBe(true);
  });

  it('redirects the deployment root without a slash', async () => {
    const response = await get(`/sites/${run.id}/d/dep_v1`);
    expect(response.statusCode).toBe(301);
    expect(response.headers.location).toBe(`/sites/${run.id}/d/dep_v1/`);
  });

  it('answers 404 deployment_not_found for an unknown or malformed deploy id', async () => {
    for (const deployId of ['dep_missing', 'dep%20x', '%2e%2e', '..', 'dep_v1%2f..']) {
      const response = await getRaw(`/sites/${run.id}/d/${deployId}/index.html`);
      expect(response.status, deployId).toBe(404);
      expect(JSON.parse(response.body).error.code, deployId).toBe('deployment_not_found');
    }
  });
});

describe('og-image.svg', () => {
  it('is 404 until regen_og writes the asset, then served as SVG beside the live site and every deployment', async () => {
    const missing = await get(`/sites/${run.id}/og-image.svg`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('site_file_not_found');

    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630"><text>Crumb</text></svg>';
    expect(await setRunAsset({ engine: harness.fleet.store, runId: run.id, name: 'og-image.svg', content: svg })).toBe('ok');
    // From now on the live pages name it, before </head>.
    const page = (await get(`/sites/${run.id}/`)).body;
    expect(page).toContain(`<meta property="og:image" content="${SITES_ORIGIN}/sites/${run.id}/og-image.svg">`);
    expect(page.indexOf('og:image')).toBeLessThan(page.indexOf('</head>'));
    for (const url of [`/sites/${run.id}/og-image.svg`, `/sites/${run.id}/d/dep_v1/og-image.svg`]) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type']).toBe('image/svg+xml');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.body).toBe(svg);
    }
  });
});

describe('path traversal', () => {
  it('answers 404 for every traversal attempt and never reads outside the deployment', async () => {
    // Bait: a workspace file beside the deployment, which no path of the deployment may reach.
    await harness.writeFile(run.id, 'secret.txt', 'SECRET');
    const attempts = [
      '../secret.txt',
      '..%2f..%2f',
      '..%2f..%2f..%2fv1%2fruns',
      '..%2fsecret.txt',
      '%2e%2e/secret.txt',
      '%2e%2e%2fsecret.txt',
      '%252e%252e/secret.txt',
      'a/../secret.txt',
      'a/%2e%2e/secret.txt',
      './index.html',
      '%2e/index.html',
      '..%5csecret.txt',
      '..\\secret.txt',
      'a%5c..%5c..%5csecret.txt',
      '%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '....//secret.txt',
      'index.html%00.png',
      '.env',
      '/etc/passwd',
      '%2fetc%2fpasswd',
      'C:%5cwindows',
      'a//b.html',
    ];
    for (const attempt of attempts) {
      for (const path of [`/sites/${run.id}/${attempt}`, `/sites/${run.id}/d/dep_v1/${attempt}`]) {
        const response = await getRaw(path);
        expect(response.status, path).toBe(404);
        expect(response.body, path).not.toContain('SECRET');
        expect(JSON.parse(response.body).error.code, path).toMatch(/^(site_file_not_found|not_found)$/);
      }
    }
    for (const path of [`/sites/${run.id}/../../v1/runs`, `/sites/${run.id}/d/../../${run.id}/`, `/sites/../sites/${run.id}/secret.txt`]) {
      const response = await getRaw(path);
      expect(response.status, path).toBe(404);
      expect(response.body, path).not.toContain('SECRET');
    }
  });

  it('serves the same files when the path is canonical (the bait above is reachable only by traversal)', async () => {
    expect((await getRaw(`/sites/${run.id}/d/dep_v1/index.html`)).status).toBe(200);
    expect((await getRaw(`/sites/${run.id}/secret.txt`)).status).toBe(404);
  });
});

describe('the sites origin', () => {
  it('sandboxes every answer: files, redirects and errors carry the CSP, nosniff, CORS for its opaque origin and no referrer', async () => {
    const answers = [
      await get(`/sites/${run.id}/`),
      await get(`/sites/${run.id}/app.js`),
      await get(`/sites/${run.id}/d/dep_v1/images/logo.png`),
      await get(`/sites/${run.id}`),
      await get(`/sites/${run.id}/nope.html`),
      await get('/v1/runs'),
      await harness.sites.inject({ method: 'HEAD', url: `/sites/${run.id}/` }),
      // A run id that does not percent-decode: answered by Fastify's frameworkErrors, which runs no onSend hook.
      await get('/sites/%E0%A4%A/'),
    ];
    expect(answers.at(-1)?.json()).toMatchObject({ error: { code: 'bad_request' } });
    for (const answer of answers) {
      const label = `${answer.statusCode} ${answer.headers['content-type']}`;
      expect(answer.headers['content-security-policy'], label).toBe(SITE_CONTENT_SECURITY_POLICY);
      expect(answer.headers['x-content-type-options'], label).toBe('nosniff');
      expect(answer.headers['access-control-allow-origin'], label).toBe('*');
      expect(answer.headers['referrer-policy'], label).toBe('no-referrer');
    }
    // The page's own origin is opaque (no allow-same-origin); fetches reach only the sites origin.
    const directives = SITE_CONTENT_SECURITY_POLICY.split('; ');
    expect(directives[0]).toMatch(/^sandbox allow-scripts/);
    expect(directives[0]).not.toContain('allow-same-origin');
    expect(directives).toContain("default-src 'self'");
    expect(directives).toContain("connect-src 'self'");
    expect(SITE_CONTENT_SECURITY_POLICY).not.toMatch(/\*|https?:/);
  });

  it('serves no route of the API: no /v1, no /docs, no health', async () => {
    for (const url of ['/v1/runs', `/v1/runs/${run.id}`, '/docs', '/docs/json', '/healthz', '/metrics', '/']) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(404);
      expect(response.json(), url).toEqual({ error: { code: 'not_found', message: 'No such route.' } });
    }
    const posted = await harness.sites.inject({ method: 'POST', url: '/v1/runs', headers: harness.auth, payload: { prompt: 'x' } });
    expect(posted.statusCode).toBe(404);
  });

  it('answers 404 run_not_found for unknown and malformed run ids', async () => {
    const ids = ['run_doesnotexist123', 'run_x', 'not-a-run', 'run_' + 'a'.repeat(65), "run_12345678'--", 'run_%00abcdefgh'];
    for (const id of ids) {
      for (const url of [`/sites/${id}/`, `/sites/${id}/og-image.svg`, `/sites/${id}/d/dep_abc/index.html`]) {
        const response = await get(url);
        expect(response.statusCode, url).toBe(404);
        expect(response.json(), url).toEqual({ error: { code: 'run_not_found', message: 'No such run.' } });
      }
    }
  });
});

describe('the API origin', () => {
  it('serves no byte of a published site: every site path is a 308 to the same path on the sites origin', async () => {
    for (const path of [
      `/sites/${run.id}/`,
      `/sites/${run.id}/index.html`,
      `/sites/${run.id}/app.js`,
      `/sites/${run.id}/images/logo.png`,
      `/sites/${run.id}/og-image.svg`,
      `/sites/${run.id}/d/dep_v1/`,
      `/sites/${run.id}/d/dep_v2/index.html?x=1`,
      `/sites/${run.id}`,
    ]) {
      const response = await getRaw(path, apiUrl);
      expect(response.status, path).toBe(308);
      expect(response.headers.location, path).toBe(`${SITES_ORIGIN}${path}`);
      for (const bytes of ['Crumb', 'v2', 'console.log', 'color: red', 'PNG', '<svg']) expect(response.body, `${path} ${bytes}`).not.toContain(bytes);
      expect(response.headers['content-type'] ?? '', path).not.toMatch(/html|javascript|image/);
    }
  });

  it('redirects without reading: an unknown run gets the same answer, and the target never leaves the sites origin', async () => {
    for (const path of ['/sites/run_doesnotexist123/', '/sites/..%2f..%2fv1%2fruns', `/sites/${run.id}/../../v1/runs`, '/sites//evil.example/x']) {
      const response = await getRaw(path, apiUrl);
      expect(response.status, path).toBe(308);
      expect(new URL(String(response.headers.location)).origin, path).toBe(SITES_ORIGIN);
    }
  });

  it('documents the redirect, and no site route, in its OpenAPI document', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const sitePaths = Object.keys(document.paths).filter((path) => path.startsWith('/sites'));
    expect(sitePaths).toEqual(['/sites/{path}']);
    expect(Object.keys(document.paths['/sites/{path}']!.get!.responses)).toContain('308');
  });
});
