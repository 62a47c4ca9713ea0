// The effect system's reads: a run's workspace (`keys.files`) and its deployments as the API, the
// sites server and the archive see them. The guarded writes of tools are the functions of
// ../effects/, behind the write fence.
import { writesKey } from '../effect-keys.js';
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

  async deploymentExists(runId: string, deployId: string): Promise<boolean> {
    return (await this.redis.zscore(this.keys.deployments(runId), deployId)) !== null;
  }

  async countDeployments(runId: string): Promise<number> {
    return this.redis.zcard(this.keys.deployments(runId));
  }

  /** The deploy ids the run recorded (its deployments set), oldest first. */
  async listDeploymentIds(runId: string): Promise<string[]> {
    return this.redis.zrange(this.keys.deployments(runId), 0, -1);
  }

  /** Entries of the run's write journal (effect-scripts.ts): every publish's position is below it. */
  async writeJournalLength(runId: string): Promise<number> {
    return this.redis.llen(writesKey(this.keys, runId));
  }
}
