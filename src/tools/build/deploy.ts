// deploy: snapshots the workspace into an immutable deployment with its own URL. The files go to
// the SiteStore (src/sites/, docs/sites.md#storage); Redis records that the deployment exists.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { deploymentUrl } from '../site-urls.js';
import { readWorkspaceFiles, recordDeployment, claimDurabilityOf } from '../../engine/index.js';
import { siteStoreOf } from '../../sites/site-store-of-config.js';
import { defineTool, ToolError } from '../tool-types.js';
import { writeFenceOf, writeRefusalError } from '../workspace/write-fence.js';

/** The deploy id of one deploy call. Derived from the tool call rather than random, so running
 * the same call again after a crash finds its deployment instead of making a second one. */
export function deployIdFor({ runId, toolUseId }: { runId: string; toolUseId: string }): string {
  return `dep_${createHash('sha256')
    .update(runId + toolUseId)
    .digest('hex')
    .slice(0, 16)}`;
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
  // Once only, with the files outside Redis. The files are written first, keyed by the deploy id
  // (itself derived from the tool call), and the engine's guarded Lua step then records the
  // deployment; that step is still the one place that decides it exists (once per deploy id, behind
  // the kill switch, the run's safe mode and its end). A crash between the two leaves a complete
  // deployment on the store and none recorded: the re-delivered call finds the store's copy
  // complete, writes nothing, and the Lua step records it. A crash after the record makes the Lua
  // step answer "recorded already". Two copies of the same call racing write the same name, and
  // the store's create-if-absent keeps the first. So each deploy call takes effect once, and a
  // deployment, once complete, never changes.
  async execute(_input, context) {
    const { runId } = context;
    const deployId = deployIdFor({ runId, toolUseId: context.toolUseId });
    const sites = siteStoreOf(context.config);
    // A deployment this call already made is returned as is, even if the workspace changed since.
    let paths = await sites.deploymentPaths({ runId, deployId });
    let storedNow = false;
    if (paths === null) {
      // One HGETALL: a consistent state of the workspace. Writes of parallel calls of the same
      // turn land before or after it, as they landed before or after the old in-Lua snapshot.
      const files = await readWorkspaceFiles({ engine: context.store, runId });
      if (files.length === 0) {
        throw new ToolError('deploy_empty_workspace', 'The workspace has no files to deploy; write the site with write_file first.');
      }
      const stored = await sites.putDeployment({ runId, deployId, files });
      paths = stored.paths;
      storedNow = stored.created;
    }
    // Not acknowledged (nor its URL handed out) until the record is on a replica, when configured.
    const recorded = await recordDeployment({
      engine: context.store,
      runId,
      deployId,
      fence: writeFenceOf(context),
      durability: claimDurabilityOf(context.config),
    });
    if ('refused' in recorded) {
      // Refused means not recorded (the step answers "recorded already" before it checks the
      // fence), so the copy this call stored is no deployment: remove it rather than leave bytes
      // that would look complete once the run's Redis keys are gone. A copy an earlier, crashed
      // attempt stored is left (it is never served while the run's keys exist, its URL was never
      // handed out, and a later retry may still record it).
      if (storedNow) await sites.discardDeployment({ runId, deployId });
      throw writeRefusalError(recorded.refused);
    }
    return {
      deploy_id: deployId,
      url: deploymentUrl({ sitesBaseUrl: context.publicBaseUrl, runId, deployId }),
      files: paths,
    };
  },
});

/** What the tool's entry in src/domain/site-builder-tools.ts names: the tool worker imports it. */
export default deployTool;
