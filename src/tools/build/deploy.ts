// deploy: snapshots the workspace into an immutable deployment with its own URL.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../tool-definitions.js';
import { deploymentUrl } from '../site-urls.js';
import { isWriteRefusal } from '../../engine/effects/write-fence.js';
import { defineTool, ToolError } from '../tool-types.js';
import { writeFenceOf, writeRefusalError } from '../workspace/write-fence.js';

/** The deploy id of one deploy call. Derived from the tool call rather than random, so running
 * the same call again after a crash finds its deployment instead of making a second one. */
export function deployIdFor({ runId, toolUseId }: { runId: string; toolUseId: string }): string {
  return `dep_${createHash('sha256').update(runId + toolUseId).digest('hex').slice(0, 16)}`;
}

export const deployTool = defineTool({
  name: 'deploy',
  description: toolDescriptions.deploy,
  inputSchema: toolInputSchemas.deploy,
  output: {
    schema: z.strictObject({ deploy_id: z.string(), url: z.string(), files: z.array(z.string().min(1)) }),
    invariants: [
      { name: 'deploy_id_format', check: (output) => /^dep_[0-9a-f]{16}$/.test(output.deploy_id) || `${output.deploy_id} is not dep_ + 16 hex digits` },
      { name: 'files_non_empty', check: (output) => output.files.length > 0 || 'the deployment holds no files' },
      {
        name: 'url_is_the_deployment',
        check: (output, { runId }) => output.url.endsWith(`/sites/${runId}/d/${output.deploy_id}/`) || `${output.url} is not this run's deployment URL`,
      },
    ],
    mode: 'fail_closed',
  },
  writes: true,
  idempotent: true,
  async execute(_input, context) {
    const deployId = deployIdFor({ runId: context.runId, toolUseId: context.toolUseId });
    // A deployment this call already made is returned as is, even if the workspace changed since.
    const exists = await context.store.deploymentExists(context.runId, deployId);
    if (!exists && (await context.store.listFiles(context.runId)).length === 0) {
      throw new ToolError('deploy_empty_workspace', 'The workspace has no files to deploy; write the site with write_file first.');
    }
    const snapshot = await context.store.createDeployment(context.runId, deployId, writeFenceOf(context));
    if ('refused' in snapshot) {
      // RunEngine.createDeployment types the refusal as a string; the script only refuses with
      // the write fence's codes, so anything else is a broken script, not the model's problem.
      if (isWriteRefusal(snapshot.refused)) throw writeRefusalError(snapshot.refused);
      throw new Error(`bfSnapshotDeployment refused with an unknown outcome: ${snapshot.refused}`);
    }
    return {
      deploy_id: deployId,
      url: deploymentUrl({ sitesBaseUrl: context.publicBaseUrl, runId: context.runId, deployId }),
      files: [...snapshot.files].sort(),
    };
  },
});
