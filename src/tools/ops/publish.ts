// publish: makes one deployment the live site.
import { z } from 'zod';
import { toolInputSchemas } from '../input-schemas.js';
import { liveSiteUrl } from '../site-urls.js';
import { defineTool, ToolError } from '../tool-types.js';
import { updateRunGuarded } from '../workspace/update-run-guarded.js';
import { writeFenceOf } from '../workspace/write-fence.js';

export const publishTool = defineTool({
  name: 'publish',
  description:
    'Make a deployment the live site, by the deploy_id that deploy returned. Publish the latest deployment once you have ' +
    'checked it; publishing again replaces what is live.',
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
    await updateRunGuarded({
      store: context.store,
      runId: context.runId,
      fields: { liveDeploy: input.deploy_id },
      kind: 'publish',
      fence: writeFenceOf(context),
    });
    return { deploy_id: input.deploy_id, url: liveSiteUrl({ publicBaseUrl: context.publicBaseUrl, runId: context.runId }) };
  },
});
