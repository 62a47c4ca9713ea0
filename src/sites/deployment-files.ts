// Reading a deployment wherever it is: the SiteStore, where every deployment since issue #21 lives,
// else the Redis hash where deployments made before it were snapshotted (RunEngine.getDeploymentFile).
// The Redis fallback is the migration: those deployments keep serving for as long as their run's
// keys exist, with no copy step to run or to get wrong (docs/sites.md#storage says why).
import type { RunEngine } from '../engine/index.js';
import type { SiteStore } from './site-store.js';

interface DeploymentRef {
  sites: SiteStore;
  engine: RunEngine;
  runId: string;
  deployId: string;
}

/** One file's stored content, or null when the deployment has no such file. */
export async function readDeploymentFile({ sites, engine, runId, deployId, path }: DeploymentRef & { path: string }): Promise<string | null> {
  const stored = await sites.readDeploymentFile({ runId, deployId, path });
  if (stored !== null) return stored;
  // A deployment on the store is complete: a path it lacks is not looked for in Redis.
  if ((await sites.deploymentPaths({ runId, deployId })) !== null) return null;
  return engine.getDeploymentFile(runId, deployId, path);
}

/** The deployment's paths, sorted, from the store or else the pre-#21 Redis snapshot. */
export async function listDeploymentPaths({ sites, engine, runId, deployId }: DeploymentRef): Promise<string[]> {
  const stored = await sites.deploymentPaths({ runId, deployId });
  if (stored !== null) return stored;
  return (await engine.listDeploymentFiles(runId, deployId)).sort();
}
