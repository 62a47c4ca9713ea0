// publish: makes one deployment the live site.
import { ensureRunUpdated } from '../core/ensure-run-updated.js';
import { toolInputSchemas } from '../input-schemas.js';
import { liveSiteUrl } from '../site-urls.js';
import { defineTool, ToolError } from '../tool-types.js';

export const publishTool = defineTool({
  name: 'publish',
  description:
    'Make a deployment the live site, by the deploy_id that deploy returned. Publish the latest deployment once you have ' +
    'checked it; publishing again replaces what is live.',
  inputSchema: toolInputSchemas.publish,
  writes: true,
  idempotent: true,
  async execute(input, context) {
    if (!(await context.store.deploymentExists(context.runId, input.deploy_id))) {
      throw new ToolError('deploy_not_found', `This run has no deployment ${input.deploy_id}; use the deploy_id that deploy returned.`);
    }
    await ensureRunUpdated({ store: context.store, runId: context.runId, update: { liveDeploy: input.deploy_id } });
    return { deploy_id: input.deploy_id, url: liveSiteUrl({ publicBaseUrl: context.publicBaseUrl, runId: context.runId }) };
  },
});
