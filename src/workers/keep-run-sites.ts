// Before a run's Redis keys start to expire (the archive step, archive-worker.ts), its sites must
// stand on the SiteStore alone: once the keys are gone, the sites origin serves what the store
// holds and nothing else (docs/sites.md#storage). Every deployment's files are on the store already
// (deploy writes them before it records the deployment); what may be only in Redis is the published
// pointer of a run whose publish recorded `liveDeploy` in Redis but died before writing the
// store's pointer. It is written here. Idempotent: a pointer that already names the live
// deployment is left as it is, so a re-delivered archive job writes nothing twice.
import type { RunEngine, RunRecord } from '../engine/index.js';
import type { SiteStore } from '../sites/site-store.js';

export interface KeptSites {
  /** The deploy id whose published pointer this call wrote, or null (none needed). */
  published: string | null;
}

/** Thrown when the run's live deployment is not on the site store: expiring the run's keys would
 * not lose it (it is already gone), but the archive must not pretend the site serves. */
export class LiveDeploymentMissing extends Error {
  readonly code = 'live_deployment_missing';
  constructor(runId: string, deployId: string) {
    super(`The run ${runId} publishes ${deployId}, which is not on the site store`);
    this.name = 'LiveDeploymentMissing';
  }
}

/** Writes the run's published pointer to the site store when only Redis holds it. */
export async function keepRunSites({ engine, sites, run }: { engine: RunEngine; sites: SiteStore; run: RunRecord }): Promise<KeptSites> {
  if (!run.liveDeploy) return { published: null };
  if ((await sites.deploymentPaths({ runId: run.id, deployId: run.liveDeploy })) === null) throw new LiveDeploymentMissing(run.id, run.liveDeploy);
  const pointer = await sites.readPublished(run.id);
  if (pointer?.deployId === run.liveDeploy) return { published: null };
  // While the run's keys exist Redis says what is live; the store must say the same after. The
  // journal's length is at least the position of the run's last publish (bfPublishDeployment hands
  // out positions from it), and the pointer must also outrank any the store holds already.
  const sequence = Math.max(await engine.writeJournalLength(run.id), (pointer?.sequence ?? 0) + 1, 1);
  await sites.publish({ runId: run.id, deployId: run.liveDeploy, sequence });
  return { published: run.liveDeploy };
}
