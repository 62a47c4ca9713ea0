// Where the sites origin exposes a run's sites (src/api/sites-server.ts). One place, so the
// URLs tools hand to the model, the run view and the API's redirects match the routes the sites
// origin serves. The base is always the sites origin (BUILDFLEET_SITES_PUBLIC_URL), never the API's:
// model-written pages must not run on the origin of /v1 and /docs.

/** The path of a run's sites, the same on the sites origin as in the API's redirects. */
export const SITES_PATH_PREFIX = '/sites/';

function base(sitesBaseUrl: string): string {
  return sitesBaseUrl.replace(/\/+$/, '');
}

/** URL of one immutable deployment. */
export function deploymentUrl({ sitesBaseUrl, runId, deployId }: { sitesBaseUrl: string; runId: string; deployId: string }): string {
  return `${base(sitesBaseUrl)}${SITES_PATH_PREFIX}${runId}/d/${deployId}/`;
}

/** URL of the run's published (live) site. */
export function liveSiteUrl({ sitesBaseUrl, runId }: { sitesBaseUrl: string; runId: string }): string {
  return `${base(sitesBaseUrl)}${SITES_PATH_PREFIX}${runId}/`;
}

/** The same path on the sites origin: where the API's old /sites URLs now point. `path` is a
 * request path (it starts with `/`), so the result never leaves the sites origin. */
export function sitesOriginUrl({ sitesBaseUrl, path }: { sitesBaseUrl: string; path: string }): string {
  return `${base(sitesBaseUrl)}${path.startsWith('/') ? path : `/${path}`}`;
}
