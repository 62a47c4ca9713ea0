// Runs the tool-use experiments' builds on an in-process fleet, a bounded number at a time, and
// counts each into its arm (experiment-arm-tally.ts).
import { newRunId } from '../engine/index.js';
import type { InProcessFleet } from '../dev/in-process-fleet.js';
import type { SubmitRunInput } from '../fleet/run-commands.js';
import { tallyRunEnd, type ArmTally } from './experiment-arm-tally.js';

export interface ArmBuild {
  tally: ArmTally;
  input: Partial<SubmitRunInput>;
}

/** Submits every build, at most `concurrency` at once, waits for each and counts its end. Each run
 * is registered in `armOfRun` before it is submitted, so its first turn is counted too. */
export async function runArmBuilds({
  fleet,
  builds,
  armOfRun,
  concurrency,
  timeoutMs,
}: {
  fleet: InProcessFleet;
  builds: readonly ArmBuild[];
  armOfRun: Map<string, ArmTally>;
  concurrency: number;
  timeoutMs: number;
}): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < builds.length) {
      const build = builds[next]!;
      next += 1;
      const runId = newRunId();
      armOfRun.set(runId, build.tally);
      await fleet.submit({ ...build.input, runId });
      let finished = null;
      try {
        finished = await fleet.waitForRun(runId, timeoutMs);
      } catch (error) {
        // A run that did not settle in time counts as not verified; anything else is the fleet's failure.
        if (!(error instanceof Error && error.message.includes('did not settle'))) throw error;
      }
      tallyRunEnd(build.tally, finished);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
}
