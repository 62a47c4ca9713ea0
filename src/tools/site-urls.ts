// Where the site server exposes a run's sites. One place, so the URLs tools hand to the model
// match the routes the API serves.

function base(publicBaseUrl: string): string {
  return publicBaseUrl.replace(/\/+$/, '');
}

/** URL of one immutable deployment. */
export function deploymentUrl({ publicBaseUrl, runId, deployId }: { publicBaseUrl: string; runId: string; deployId: string }): string {
  return `${base(publicBaseUrl)}/sites/${runId}/d/${deployId}/`;
}

/** URL of the run's published (live) site. */
export function liveSiteUrl({ publicBaseUrl, runId }: { publicBaseUrl: string; runId: string }): string {
  return `${base(publicBaseUrl)}/sites/${runId}/`;
}
