// GET /sites/* on the API's origin: sites moved to an origin of their own (issue #16), so the API
// never serves a byte a model wrote. Links handed out before the move (and typed by hand) are
// answered with a permanent redirect to the same path on the sites origin, decided from the URL
// alone: nothing is read, so not even whether the run exists is told here.
import { z } from 'zod';
import type { FleetContext } from '../../fleet/fleet-context.js';
import { sitesOriginUrl } from '../../tools/site-urls.js';
import { defineRoute } from '../define-route.js';

const movedParamsSchema = z.object({ '*': z.string().describe('The rest of the site path: `{runId}/…`') });

export function sitesMovedRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'GET',
    url: '/sites/*',
    operationId: 'redirectToSitesOrigin',
    summary: 'Sites are served on the sites origin',
    description:
      'Published sites and deployments are served on their own origin ' +
      '(`BUILDFLEET_SITES_PUBLIC_URL`, docs/sites.md), with a sandboxing ' +
      'Content-Security-Policy, never on the API’s origin. This answers every `/sites/…` ' +
      'path with `308` to the same path and query on the sites origin, without reading or serving anything.',
    tags: ['sites'],
    access: 'public',
    params: movedParamsSchema,
    responses: {
      308: { description: 'Moved to the sites origin', headers: { location: { description: 'The same path and query on the sites origin' } } },
    },
    errors: [],
    async handler(request, reply) {
      // request.url is the path (always /sites/…) and query as sent: appended to the sites base,
      // the target cannot leave the sites origin.
      return reply.redirect(sitesOriginUrl({ sitesBaseUrl: fleet.sitesBaseUrl, path: request.url }), 308);
    },
  });
}
