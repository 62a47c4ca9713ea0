// Test-only: a deployment made as the deploy tool makes one (src/tools/build/deploy.ts) — the
// workspace's files onto the site store, then the engine's guarded step records it — so a test
// seeds only what production can reach.
import { readWorkspaceFiles, recordDeployment, type RunEngine } from '../../src/engine/index.js';
import type { SiteStore } from '../../src/sites/site-store.js';

/** Deploys the run's workspace as `deployId`; throws when the write fence refuses it. */
export async function seedDeployment({ engine, sites, runId, deployId }: { engine: RunEngine; sites: SiteStore; runId: string; deployId: string }): Promise<{ created: boolean; files: string[] }> {
  const files = await readWorkspaceFiles({ engine, runId });
  const stored = await sites.putDeployment({ runId, deployId, files });
  const recorded = await recordDeployment({ engine, runId, deployId });
  if ('refused' in recorded) throw new Error(`seeding ${deployId} of ${runId}: the deployment was refused (${recorded.refused})`);
  return { created: recorded.created, files: stored.paths };
}
