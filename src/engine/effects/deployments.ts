// The engine's side of deploy and publish since issue #21: the files live on the SiteStore
// (src/sites/), and Redis keeps only what decides — which deployments the run has (its
// deployments zset), its latest and live one, and the write journal. Each decision is one guarded
// Lua step (effect-scripts.ts bfRecordDeployment, bfPublishDeployment): the kill switch, the
// run's safe mode and its end are checked in the same step that records, exactly as before.
import { defineToolScripts } from '../effect-scripts.js';
import type { RunEngine } from '../run-engine.js';
import { toFields } from '../run-record.js';
import { writesKey } from '../effect-keys.js';
import { confirmClaimDurable, type ClaimDurability } from './claim-durability.js';
import { fenceArgs, fenceKeys, isWriteRefusal, type WriteFence, type WriteRefusal } from './write-fence.js';

/** The whole workspace, path -> content, read in one command (so one consistent state). */
export async function readWorkspaceFiles({ engine, runId }: { engine: RunEngine; runId: string }): Promise<Array<{ path: string; content: string }>> {
  const files = await engine.redis.hgetall(engine.keys.files(runId));
  return Object.entries(files).map(([path, content]) => ({ path, content }));
}

/** One deployment of a run, and the write fence of the call that records or publishes it. */
interface DeploymentStep {
  engine: RunEngine;
  runId: string;
  deployId: string;
  fence?: WriteFence | undefined;
  /** WAIT for replicas before the step counts as done (claim-durability.ts); absent or 0: no wait. */
  durability?: ClaimDurability | undefined;
}

/** Records a deployment whose files are on the SiteStore: `created` false when it was recorded
 * already (nothing written), or the fence's refusal (nothing written). */
export async function recordDeployment({
  engine,
  runId,
  deployId,
  fence,
  durability,
}: DeploymentStep): Promise<{ created: boolean } | { refused: WriteRefusal }> {
  const reply = await defineToolScripts(engine.redis).bfRecordDeployment(
    ...fenceKeys(engine, runId),
    engine.keys.deployments(runId),
    ...(await fenceArgs(engine, fence)),
    deployId,
    new Date().toISOString(),
  );
  if (reply[0] === 'ok') {
    // Also when recorded already: a retry after a claim that was not durable confirms it now.
    const deployments = engine.keys.deployments(runId);
    await confirmClaimDurable({
      redis: engine.redis,
      durability,
      what: `deploy ${deployId}`,
      readBack: { command: 'zscore', key: deployments, member: deployId },
    });
    return { created: reply[1] === 1 };
  }
  if (isWriteRefusal(reply[0])) return { refused: reply[0] };
  throw new Error(`bfRecordDeployment answered an unknown outcome: ${String(reply[0])}`);
}

/** Makes a recorded deployment the live one: the publish's sequence (it orders the SiteStore's
 * published pointers), 'missing' when the run has no such deployment, or the fence's refusal. */
export async function publishDeployment({
  engine,
  runId,
  deployId,
  fence,
  durability,
}: DeploymentStep): Promise<{ sequence: number } | 'missing' | WriteRefusal> {
  const now = new Date().toISOString();
  const reply = await defineToolScripts(engine.redis).bfPublishDeployment(
    ...fenceKeys(engine, runId),
    engine.keys.deployments(runId),
    ...(await fenceArgs(engine, fence)),
    deployId,
    now,
    JSON.stringify(toFields({ liveDeploy: deployId, updatedAt: now })),
  );
  if (reply[0] === 'ok') {
    // Before the caller moves the SiteStore's pointer: never an effect whose claim could be lost.
    const journal = writesKey(engine.keys, runId);
    await confirmClaimDurable({ redis: engine.redis, durability, what: `publish ${deployId}`, readBack: { command: 'llen', key: journal, atLeast: reply[1] } });
    return { sequence: reply[1] };
  }
  if (reply[0] === 'missing' || isWriteRefusal(reply[0])) return reply[0];
  throw new Error(`bfPublishDeployment answered an unknown outcome: ${String(reply[0])}`);
}
