// The effect system's reads: a run's workspace (`keys.files`) and its deployments as the API, the
// sites server and the archive see them, and the deployment snapshot in Redis (the format before
// issue #21). The guarded writes of tools are the functions of ../effects/, behind the write fence.
import { defineToolScripts, type WriteRefusalOutcome } from '../effect-scripts.js';
import { writesKey } from '../effect-keys.js';
import { fenceArgs, fenceKeys } from '../effects/write-fence.js';
import { EngineSystem } from './engine-system.js';

export class EffectSystem extends EngineSystem {
  async readFile(runId: string, path: string): Promise<string | null> {
    return this.redis.hget(this.keys.files(runId), path);
  }

  async listFiles(runId: string): Promise<Array<{ path: string; bytes: number }>> {
    const files = await this.redis.hgetall(this.keys.files(runId));
    return Object.entries(files)
      .map(([path, content]) => ({ path, bytes: Buffer.byteLength(content) }))
      .sort((left, right) => left.path.localeCompare(right.path));
  }

  /** Snapshots the workspace into a deployment held in Redis, once per deploy id, behind the write
   * fence: the format before issue #21. No production path writes it any more (deploy stores files
   * on the SiteStore and records them with effects/deployments.ts); deployments made in it are
   * still served (src/sites/deployment-files.ts), and tests seed that format through it. */
  async createDeployment(
    runId: string,
    deployId: string,
    fence: { tool: string; probeToken: string } = { tool: 'deploy', probeToken: '' },
  ): Promise<{ created: boolean; files: string[] } | { refused: WriteRefusalOutcome }> {
    const keys = this.keys;
    const reply = await defineToolScripts(this.redis).bfSnapshotDeployment(
      ...fenceKeys(this.context, runId),
      keys.files(runId),
      keys.deployment(runId, deployId),
      keys.deployments(runId),
      ...(await fenceArgs(this.context, fence)),
      deployId,
      new Date().toISOString(),
    );
    if (reply[0] !== 'ok') return { refused: reply[0] };
    return { created: reply[1] === 1, files: reply[2] };
  }

  async getDeploymentFile(runId: string, deployId: string, path: string): Promise<string | null> {
    return this.redis.hget(this.keys.deployment(runId, deployId), path);
  }

  async deploymentExists(runId: string, deployId: string): Promise<boolean> {
    return (await this.redis.zscore(this.keys.deployments(runId), deployId)) !== null;
  }

  async listDeploymentFiles(runId: string, deployId: string): Promise<string[]> {
    return this.redis.hkeys(this.keys.deployment(runId, deployId));
  }

  async countDeployments(runId: string): Promise<number> {
    return this.redis.zcard(this.keys.deployments(runId));
  }

  /** The deploy ids the run recorded (its deployments set), oldest first. */
  async listDeploymentIds(runId: string): Promise<string[]> {
    return this.redis.zrange(this.keys.deployments(runId), 0, -1);
  }

  /** A deployment snapshotted into Redis before issue #21 (createDeployment): path → content, in
   * one read; empty when the deployment is not in Redis (every deployment made since). */
  async readDeploymentSnapshot(runId: string, deployId: string): Promise<Array<{ path: string; content: string }>> {
    const files = await this.redis.hgetall(this.keys.deployment(runId, deployId));
    return Object.entries(files).map(([path, content]) => ({ path, content }));
  }

  /** Entries of the run's write journal (effect-scripts.ts): every publish's position is below it. */
  async writeJournalLength(runId: string): Promise<number> {
    return this.redis.llen(writesKey(this.keys, runId));
  }
}
