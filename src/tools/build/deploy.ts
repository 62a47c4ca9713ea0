// deploy: snapshots the workspace into an immutable deployment with its own URL.
import { createHash } from 'node:crypto';
import { toolInputSchemas } from '../input-schemas.js';
import { deploymentUrl } from '../site-urls.js';
import { defineTool, ToolError } from '../tool-types.js';

/** The deploy id of one deploy call. Derived from the tool call rather than random, so running
 * the same call again after a crash finds its deployment instead of making a second one. */
export function deployIdFor({ runId, toolUseId }: { runId: string; toolUseId: string }): string {
  return `dep_${createHash('sha256').update(runId + toolUseId).digest('hex').slice(0, 16)}`;
}

export const deployTool = defineTool({
  name: 'deploy',
  description:
    'Deploy the current workspace as a new immutable version of the site and get its URL and deploy_id. ' +
    'Deploy again after any change to the files; visitors only see a deployment once you publish it.',
  inputSchema: toolInputSchemas.deploy,
  writes: true,
  idempotent: true,
  async execute(_input, context) {
    const deployId = deployIdFor({ runId: context.runId, toolUseId: context.toolUseId });
    // A deployment this call already made is returned as is, even if the workspace changed since.
    const exists = await context.store.deploymentExists(context.runId, deployId);
    if (!exists && (await context.store.listFiles(context.runId)).length === 0) {
      throw new ToolError('deploy_empty_workspace', 'The workspace has no files to deploy; write the site with write_file first.');
    }
    const { files } = await context.store.createDeployment(context.runId, deployId);
    return {
      deploy_id: deployId,
      url: deploymentUrl({ publicBaseUrl: context.publicBaseUrl, runId: context.runId, deployId }),
      files: [...files].sort(),
    };
  },
});
