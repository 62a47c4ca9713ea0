// publish: makes one deployment the live site. The engine's guarded Lua step decides (and orders)
// the publish; the SiteStore's published pointer follows it, so the live site is still known once
// the run's Redis keys are gone (docs/sites.md#storage).
import { z } from 'zod';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { liveSiteUrl } from '../site-urls.js';
import { defineTool, ToolError } from '../tool-types.js';
import { publishDeployment, claimDurabilityOf } from '../../engine/index.js';
import { siteStoreOf } from '../../sites/site-store-of-config.js';
import { writeFenceOf, writeRefusalError } from '../workspace/write-fence.js';

export const publishTool = defineTool({
  name: 'publish',
  description: toolDescriptions.publish,
  inputSchema: toolInputSchemas.publish,
  output: {
    schema: z.strictObject({ deploy_id: z.string(), url: z.string() }),
    invariants: [
      { name: 'deploy_id_matches_input', check: (output, { input }) => output.deploy_id === (input as { deploy_id: string }).deploy_id },
      {
        name: 'url_is_the_live_site',
        check: (output, { runId }) => output.url.endsWith(`/sites/${runId}/`) || `${output.url} does not end with /sites/${runId}/`,
      },
    ],
    mode: 'fail_closed',
  },
  writes: true,
  idempotent: true,
  async execute(input, context) {
    const outcome = await publishDeployment({
      engine: context.store,
      runId: context.runId,
      deployId: input.deploy_id,
      fence: writeFenceOf(context),
      // The pointer below moves only once the step is on a replica, when configured.
      durability: claimDurabilityOf(context.config),
    });
    if (outcome === 'missing') {
      throw new ToolError('deploy_not_found', `This run has no deployment ${input.deploy_id}; use the deploy_id that deploy returned.`);
    }
    if (typeof outcome === 'string') throw writeRefusalError(outcome);
    // After the Lua step, never before: a refused publish must not move the live site. The pointer
    // is named by the step's sequence, so a re-delivered publish adds a pointer to the same
    // deployment, and two publishes landing on disk out of order still leave the later one live.
    // A crash between the two leaves Redis ahead of the store until the call is re-delivered.
    await siteStoreOf(context.config).publish({ runId: context.runId, deployId: input.deploy_id, sequence: outcome.sequence });
    return { deploy_id: input.deploy_id, url: liveSiteUrl({ sitesBaseUrl: context.publicBaseUrl, runId: context.runId }) };
  },
});

/** What the tool's entry in src/domain/site-builder-tools.ts names: the tool worker imports it. */
export default publishTool;
