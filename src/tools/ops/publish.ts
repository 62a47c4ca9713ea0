// publish: makes one deployment the live site.
import { z } from 'zod';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../tool-definitions.js';
import { liveSiteUrl } from '../site-urls.js';
import { defineTool, ToolError } from '../tool-types.js';
import { updateRunFields } from '../../engine/effects/run-fields.js';
import { writeFenceOf, writeRefusalError } from '../workspace/write-fence.js';

export const publishTool = defineTool({
  name: 'publish',
  description: toolDescriptions.publish,
  inputSchema: toolInputSchemas.publish,
  output: {
    schema: z.strictObject({ deploy_id: z.string(), url: z.string() }),
    invariants: [
      { name: 'deploy_id_matches_input', check: (output, { input }) => output.deploy_id === (input as { deploy_id: string }).deploy_id },
      { name: 'url_is_the_live_site', check: (output, { runId }) => output.url.endsWith(`/sites/${runId}/`) || `${output.url} does not end with /sites/${runId}/` },
    ],
    mode: 'fail_closed',
  },
  writes: true,
  idempotent: true,
  async execute(input, context) {
    if (!(await context.store.deploymentExists(context.runId, input.deploy_id))) {
      throw new ToolError('deploy_not_found', `This run has no deployment ${input.deploy_id}; use the deploy_id that deploy returned.`);
    }
    const outcome = await updateRunFields({ engine: context.store, runId: context.runId, fields: { liveDeploy: input.deploy_id }, fence: writeFenceOf(context) });
    if (outcome !== 'ok') throw writeRefusalError(outcome);
    return { deploy_id: input.deploy_id, url: liveSiteUrl({ sitesBaseUrl: context.publicBaseUrl, runId: context.runId }) };
  },
});
