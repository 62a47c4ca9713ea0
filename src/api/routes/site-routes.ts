// The site routes of the sites origin (src/api/sites-server.ts; never registered on the
// API's origin, which only redirects here: sites-moved-route.ts): a run's published site at
// /sites/{runId}/ (the live alias, which moves when the agent publishes again, so it is never
// cached without revalidation), any deployment at /sites/{runId}/d/{deployId}/ (an immutable
// snapshot, cached for a year), and the generated og-image.svg beside both. The sites server adds
// the sandboxing security headers (site-security-headers.ts) to every answer.
import type { FastifyReply } from 'fastify';
import type { FleetContext } from '../../fleet/fleet-context.js';
import { OG_IMAGE_PATH } from '../../tools/ops/regen-og.js';
import { liveSiteUrl } from '../../tools/site-urls.js';
import { readRunAsset } from '../../engine/index.js';
import { siteStoreOf } from '../../sites/site-store-of-config.js';
import { ApiError, apiErrors } from '../api-errors.js';
import { DEPLOY_ID_PATTERN, RUN_ID_PATTERN } from '../../domain/ids.js';
import { deploymentParamsSchema, deploymentRootParamsSchema, siteParamsSchema, siteRootParamsSchema } from '../api-schemas.js';
import { defineRoute } from '../define-route.js';
import { decodeSiteFile, type SiteFileBody } from '../sites/decode-site-file.js';
import { injectSiteMeta } from '../sites/inject-site-meta.js';
import { isHtmlContentType } from '../sites/site-content-type.js';
import { resolveSitePath } from '../sites/site-path.js';
import { RunReader, type FoundRun } from '../run-reader.js';

const LIVE_CACHE_CONTROL = 'no-cache';
const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';
const SITE_CONTENT_TYPES = [
  'text/html',
  'text/css',
  'text/javascript',
  'image/svg+xml',
  'image/png',
  'image/jpeg',
  'image/webp',
  'application/json',
  'text/plain',
];

function sendFile({ reply, file, cacheControl }: { reply: FastifyReply; file: SiteFileBody | { body: string; contentType: string }; cacheControl: string }) {
  return reply.header('content-type', file.contentType).header('cache-control', cacheControl).header('x-content-type-options', 'nosniff').send(file.body);
}

/** The generated og-image.svg asset of a run, when regen_og made one. */
async function readOgAsset({ fleet, runId }: { fleet: FleetContext; runId: string }): Promise<SiteFileBody | null> {
  const content = await readRunAsset({ engine: fleet.store, runId, name: OG_IMAGE_PATH });
  return content === null ? null : decodeSiteFile({ path: OG_IMAGE_PATH, content });
}

/** The run's link-preview image, as GET /sites/:runId/og-image.svg serves it: regen_og's asset
 * while Redis holds the run (run assets are not archived), else the live deployment's own
 * og-image.svg; null when neither exists. `liveDeploy` is asked only when the asset is missing. */
async function readOgImage({
  fleet,
  runId,
  run,
  liveDeploy,
}: {
  fleet: FleetContext;
  runId: string;
  run: FoundRun | null;
  liveDeploy: () => Promise<string>;
}): Promise<SiteFileBody | null> {
  if (run?.source === 'redis') {
    const asset = await readOgAsset({ fleet, runId });
    if (asset) return asset;
  }
  const deployId = await liveDeploy();
  return readDeploymentFile({ fleet, runId, deployId, wildcard: OG_IMAGE_PATH }).then(
    ({ file }) => file,
    (error: unknown) => {
      if (error instanceof ApiError && error.code === 'site_file_not_found') return null;
      throw error;
    },
  );
}

// Where a site is read from (issue #21, docs/sites.md#storage). While the run's keys are in Redis,
// Redis decides what exists and what is live (the engine's Lua steps recorded it). Once retention
// has removed them, run history holds the run as it ended — its live deployment and its meta, so
// pages are served exactly as before — and the SiteStore which deployments exist. Without history
// (no DATABASE_URL), the SiteStore alone does: its complete deployments and its published pointer.
// The bytes always come from the SiteStore.

/** The run as Redis or history holds it, or null when neither does (a malformed id is not found).
 * Null too when history cannot be reached: a published site is public and its bytes and pointer
 * are on the SiteStore, so it keeps being served from there (without the set_meta tags history
 * holds) rather than answering 503 while PostgreSQL is away. */
async function runOrNull({ fleet, runId }: { fleet: FleetContext; runId: string }): Promise<FoundRun | null> {
  if (!RUN_ID_PATTERN.test(runId)) throw apiErrors.runNotFound();
  try {
    return await new RunReader(fleet).findRun({ runId });
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'history_unavailable') throw error;
    fleet.logger.warn(
      { run_id: runId, err: error.cause instanceof Error ? error.cause.message : error.message },
      'history unavailable: serving the site from the site store alone',
    );
    return null;
  }
}

/** Without the run in Redis, a run the store knows nothing of is as unknown as before. */
async function throwUnknownOnStore({ fleet, runId, otherwise }: { fleet: FleetContext; runId: string; otherwise: () => Error }): Promise<never> {
  if ((await siteStoreOf(fleet.config).listDeployments(runId)).length === 0) throw apiErrors.runNotFound();
  throw otherwise();
}

/** The deployment the live alias serves. */
async function liveDeployOf({
  fleet,
  runId,
  run,
  unpublished = () => apiErrors.siteNotPublished(),
}: {
  fleet: FleetContext;
  runId: string;
  run: FoundRun | null;
  unpublished?: () => Error;
}): Promise<string> {
  if (run) {
    if (!run.run.liveDeploy) throw unpublished();
    return run.run.liveDeploy;
  }
  const pointer = await siteStoreOf(fleet.config).readPublished(runId);
  if (!pointer) return throwUnknownOnStore({ fleet, runId, otherwise: unpublished });
  return pointer.deployId;
}

async function deploymentExists({
  fleet,
  runId,
  run,
  deployId,
}: {
  fleet: FleetContext;
  runId: string;
  run: FoundRun | null;
  deployId: string;
}): Promise<boolean> {
  if (!DEPLOY_ID_PATTERN.test(deployId)) return false;
  if (run?.source === 'redis') return fleet.store.deploymentExists(runId, deployId);
  return (await siteStoreOf(fleet.config).deploymentPaths({ runId, deployId })) !== null;
}

async function readDeploymentFile({
  fleet,
  runId,
  deployId,
  wildcard,
}: {
  fleet: FleetContext;
  runId: string;
  deployId: string;
  wildcard: string;
}): Promise<{ path: string; file: SiteFileBody }> {
  const path = resolveSitePath(wildcard);
  if (path === null) throw apiErrors.siteFileNotFound();
  const content = await siteStoreOf(fleet.config).readDeploymentFile({ runId, deployId, path });
  if (content === null) throw apiErrors.siteFileNotFound();
  return { path, file: decodeSiteFile({ path, content }) };
}

const siteErrors = ['run_not_found', 'site_not_published', 'site_file_not_found', 'history_unavailable'] as const;

export function liveSiteRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'GET',
    url: '/sites/:runId/*',
    operationId: 'getLiveSiteFile',
    summary: 'Serve a file of the run’s published site',
    description:
      'The live alias: files of the deployment the agent published. `/sites/{runId}/` ' +
      'serves index.html. On HTML pages, when the run has meta (set_meta), description, ' +
      'Open Graph tags and a <title> (if missing) are added to <head>. Sent with ' +
      '`cache-control: no-cache`, since publishing again changes what the alias serves.',
    tags: ['sites'],
    access: 'public',
    params: siteParamsSchema,
    responses: { 200: { description: 'The file', contentTypes: SITE_CONTENT_TYPES } },
    errors: [...siteErrors],
    async handler(request, reply) {
      const runId = request.params.runId;
      const run = await runOrNull({ fleet, runId });
      const deployId = await liveDeployOf({ fleet, runId, run });
      const { file } = await readDeploymentFile({ fleet, runId, deployId, wildcard: request.params['*'] });
      // The meta (set_meta) is the run record's, in history too; only without history do pages go
      // out as deployed once the run's keys are gone.
      const meta = run?.run.meta ?? null;
      if (meta && isHtmlContentType(file.contentType)) {
        // og:image only where the image route would answer: regen_og's asset, or the site's own file.
        const hasOgImage = (await readOgImage({ fleet, runId, run, liveDeploy: async () => deployId })) !== null;
        const ogImageUrl = hasOgImage ? `${liveSiteUrl({ sitesBaseUrl: fleet.sitesBaseUrl, runId })}${OG_IMAGE_PATH}` : null;
        const html = injectSiteMeta({ html: file.body.toString('utf8'), meta, ogImageUrl });
        return sendFile({ reply, file: { body: html, contentType: file.contentType }, cacheControl: LIVE_CACHE_CONTROL });
      }
      return sendFile({ reply, file, cacheControl: LIVE_CACHE_CONTROL });
    },
  });
}

export function ogImageRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'GET',
    url: `/sites/:runId/${OG_IMAGE_PATH}`,
    operationId: 'getSiteOgImage',
    summary: 'Serve the run’s link-preview image',
    description:
      'The og-image.svg generated by the regen_og tool (a run asset, so it changes without a redeploy); ' +
      'falls back to an og-image.svg file of the published site. Sent with `cache-control: no-cache`.',
    tags: ['sites'],
    access: 'public',
    params: siteRootParamsSchema,
    responses: { 200: { description: 'The SVG image', contentTypes: ['image/svg+xml'] } },
    errors: ['run_not_found', 'site_file_not_found', 'history_unavailable'],
    async handler(request, reply) {
      const runId = request.params.runId;
      const run = await runOrNull({ fleet, runId });
      const file = await readOgImage({
        fleet,
        runId,
        run,
        liveDeploy: () => liveDeployOf({ fleet, runId, run, unpublished: () => apiErrors.siteFileNotFound() }),
      });
      if (!file) throw apiErrors.siteFileNotFound();
      return sendFile({ reply, file, cacheControl: LIVE_CACHE_CONTROL });
    },
  });
}

export function deploymentSiteRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'GET',
    url: '/sites/:runId/d/:deployId/*',
    operationId: 'getDeploymentFile',
    summary: 'Serve a file of one deployment',
    description:
      'An immutable snapshot (a preview, published or not), served as stored ' +
      'with `cache-control: public, max-age=31536000, immutable`. `og-image.svg` ' +
      'is the run’s generated asset when there is one (then `no-cache`).',
    tags: ['sites'],
    access: 'public',
    params: deploymentParamsSchema,
    responses: { 200: { description: 'The file', contentTypes: SITE_CONTENT_TYPES } },
    errors: ['run_not_found', 'deployment_not_found', 'site_file_not_found', 'history_unavailable'],
    async handler(request, reply) {
      const runId = request.params.runId;
      const run = await runOrNull({ fleet, runId });
      const deployId = request.params.deployId;
      if (!(await deploymentExists({ fleet, runId, run, deployId }))) {
        if (run) throw apiErrors.deploymentNotFound();
        return throwUnknownOnStore({ fleet, runId, otherwise: () => apiErrors.deploymentNotFound() });
      }
      if (run?.source === 'redis' && request.params['*'] === OG_IMAGE_PATH) {
        const asset = await readOgAsset({ fleet, runId });
        if (asset) return sendFile({ reply, file: asset, cacheControl: LIVE_CACHE_CONTROL });
      }
      const { file } = await readDeploymentFile({ fleet, runId, deployId, wildcard: request.params['*'] });
      return sendFile({ reply, file, cacheControl: IMMUTABLE_CACHE_CONTROL });
    },
  });
}

/** Without the trailing slash, relative links in index.html would resolve one level too high. */
export function siteRootRedirectRoute() {
  return defineRoute({
    method: 'GET',
    url: '/sites/:runId',
    operationId: 'redirectLiveSiteRoot',
    summary: 'Redirect to the live site’s root',
    description: 'Redirects to `/sites/{runId}/` so the page’s relative links resolve.',
    tags: ['sites'],
    access: 'public',
    params: siteRootParamsSchema,
    responses: { 301: { description: 'Moved to /sites/{runId}/', headers: { location: { description: '/sites/{runId}/' } } } },
    errors: ['run_not_found'],
    async handler(request, reply) {
      return reply.redirect(`/sites/${request.params.runId}/`, 301);
    },
  });
}

export function deploymentRootRedirectRoute() {
  return defineRoute({
    method: 'GET',
    url: '/sites/:runId/d/:deployId',
    operationId: 'redirectDeploymentRoot',
    summary: 'Redirect to a deployment’s root',
    description: 'Redirects to `/sites/{runId}/d/{deployId}/` so the page’s relative links resolve.',
    tags: ['sites'],
    access: 'public',
    params: deploymentRootParamsSchema,
    responses: {
      301: { description: 'Moved to /sites/{runId}/d/{deployId}/', headers: { location: { description: '/sites/{runId}/d/{deployId}/' } } },
    },
    errors: ['run_not_found', 'deployment_not_found'],
    async handler(request, reply) {
      if (!DEPLOY_ID_PATTERN.test(request.params.deployId)) throw apiErrors.deploymentNotFound();
      return reply.redirect(`/sites/${request.params.runId}/d/${request.params.deployId}/`, 301);
    },
  });
}
