// Before a run's Redis keys start to expire (the archive step, archive-worker.ts), its sites must
// stand on the SiteStore alone: once the keys are gone, the sites origin serves what the store
// holds and nothing else (docs/sites.md#storage). Two things may still be only in Redis:
//   - deployments made before issue #21, snapshotted into a Redis hash (RunEngine.createDeployment,
//     served until now by the fallback in src/sites/deployment-files.ts);
//   - the published pointer of a run that published before the store existed, or whose publish
//     recorded `liveDeploy` in Redis but died before writing the store's pointer.
// Both are copied here. Idempotent: a complete deployment is never rewritten (putDeployment), and a
// pointer that already names the live deployment is left as it is, so a re-delivered archive job
// writes nothing twice.
import type { RunEngine, RunRecord } from '../engine/index.js';
import type { SiteStore } from '../sites/site-store.js';

export interface KeptSites {
  /** Deploy ids copied from Redis to the store by this call. */
  copied: string[];
  /** The deploy id whose published pointer this call wrote, or null (none needed). */
  published: string | null;
}

/** Thrown when the run's live deployment is neither on the store nor in Redis: expiring the run's
 * keys would not lose it (it is already gone), but the archive must not pretend the site serves. */
export class LiveDeploymentMissing extends Error {
  readonly code = 'live_deployment_missing';
  constructor(runId: string, deployId: string) {
    super(`The run ${runId} publishes ${deployId}, which is neither on the site store nor in Redis`);
    this.name = 'LiveDeploymentMissing';
  }
}

/** Copies the run's Redis-only deployments and its published pointer to the site store. */
export async function keepRunSites({ engine, sites, run }: { engine: RunEngine; sites: SiteStore; run: RunRecord }): Promise<KeptSites> {
  const copied: string[] = [];
  const deployIds = new Set(await engine.listDeploymentIds(run.id));
  if (run.liveDeploy) deployIds.add(run.liveDeploy);
  for (const deployId of deployIds) {
    if ((await sites.deploymentPaths({ runId: run.id, deployId })) !== null) continue;
    const files = await engine.readDeploymentSnapshot(run.id, deployId);
    if (files.length === 0) {
      if (deployId === run.liveDeploy) throw new LiveDeploymentMissing(run.id, deployId);
      // Recorded but in neither place: a deployment whose store write was discarded (deploy.ts);
      // nothing of it can be served now or later.
      continue;
    }
    const { created } = await sites.putDeployment({ runId: run.id, deployId, files });
    if (created) copied.push(deployId);
  }
  if (!run.liveDeploy) return { copied, published: null };
  const pointer = await sites.readPublished(run.id);
  if (pointer?.deployId === run.liveDeploy) return { copied, published: null };
  // While the run's keys exist Redis says what is live; the store must say the same after. The
  // journal's length is at least the position of the run's last publish (bfPublishDeployment hands
  // out positions from it), and the pointer must also outrank any the store holds already.
  const sequence = Math.max(await engine.writeJournalLength(run.id), (pointer?.sequence ?? 0) + 1, 1);
  await sites.publish({ runId: run.id, deployId: run.liveDeploy, sequence });
  return { copied, published: run.liveDeploy };
}
