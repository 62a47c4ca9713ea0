// What the tool-use experiments (`experiment tiers`, `experiment providers`) count per arm, from
// the model workers' decision hook, and the table they print. One home, so the two experiments'
// rates mean the same thing.
import type { ModelTurnHooks } from '../agent/run-model-turn.js';
import type { RunRecord } from '../engine/index.js';
import { formatTable } from './format-table.js';

export interface ArmTally {
  arm: string;
  runs: number;
  /** Turns where the model chose whether to call a tool: before the finish was verified (after
   * it, only a summary is asked for) and with tool_choice auto. A forced turn (the plan's
   * todo_write) is left out: the API, or an OpenAI-compatible server's guided decoding, makes it
   * a native call whatever the model would have written. */
  turnsExpectingTool: number;
  toolUseTurns: number;
  /** Turns whose text held a tool call (text-call-detect or fence-only-stop), whether or not it was recovered. */
  jsonInTextTurns: number;
  recoveredTurns: number;
  /** The recovered calls' parse modes (tool-call-recover events), by count. */
  recoveredParseModes: Record<string, number>;
  verifiedFinishes: number;
  /** Runs that did not end succeeded and verified, by error code (or status). */
  otherEnds: Record<string, number>;
}

export function newArmTally(arm: string): ArmTally {
  return {
    arm,
    runs: 0,
    turnsExpectingTool: 0,
    toolUseTurns: 0,
    jsonInTextTurns: 0,
    recoveredTurns: 0,
    recoveredParseModes: {},
    verifiedFinishes: 0,
    otherEnds: {},
  };
}

/** Decision hooks that count each turn of a run into its arm's tally (runs of no arm are ignored). */
export function armTallyHooks(tallyOfRun: (runId: string) => ArmTally | undefined): ModelTurnHooks {
  return {
    onDecision({ run, response, expectedTool, toolChoice, events }) {
      const tally = tallyOfRun(run.id);
      // A forced turn (the model's capabilities allowed it) could only end in a call.
      if (!tally || !expectedTool || toolChoice.type !== 'auto') return;
      tally.turnsExpectingTool += 1;
      if (response.stop_reason === 'tool_use') tally.toolUseTurns += 1;
      if (events.some((event) => event.event === 'text-call-detect' || event.event === 'fence-only-stop')) tally.jsonInTextTurns += 1;
      const recovered = events.filter((event) => event.event === 'tool-call-recover');
      if (recovered.length > 0) tally.recoveredTurns += 1;
      for (const event of recovered) {
        const mode = String(event.parse_mode);
        tally.recoveredParseModes[mode] = (tally.recoveredParseModes[mode] ?? 0) + 1;
      }
    },
  };
}

/** Counts a settled run (or one that did not settle in time: `finished` null) into its arm. */
export function tallyRunEnd(tally: ArmTally, finished: RunRecord | null): void {
  tally.runs += 1;
  if (finished?.status === 'succeeded' && finished.finishVerified) {
    tally.verifiedFinishes += 1;
    return;
  }
  const end = finished === null ? 'not settled' : (finished.error?.code ?? finished.status);
  tally.otherEnds[end] = (tally.otherEnds[end] ?? 0) + 1;
}

export const percent = (part: number, whole: number): string => (whole === 0 ? '—' : `${((100 * part) / whole).toFixed(1)}%`);

export const verifiedShare = (tally: ArmTally): number => (tally.runs === 0 ? 0 : tally.verifiedFinishes / tally.runs);

/** `name×count` for each name counted (parse modes, run ends), most frequent first; `—` for none. */
export function formatCounts(counts: Record<string, number>): string {
  const entries = Object.entries(counts).sort((left, right) => right[1] - left[1]);
  return entries.length === 0 ? '—' : entries.map(([name, count]) => `${name}×${count}`).join(' ');
}

export interface ExtraColumn {
  title: string;
  cell: (tally: ArmTally) => string;
}

/** The arms' table: runs, the three per-turn rates, verified finishes, then `extra` columns. */
export function formatArmTable(tallies: readonly ArmTally[], extra: readonly ExtraColumn[] = []): string {
  const headers = ['arm', 'runs', 'tool_use_rate', 'json_in_text_rate', 'recovery_rate', 'verified finishes', ...extra.map((column) => column.title)];
  const rows = tallies.map((tally) => [
    tally.arm,
    String(tally.runs),
    percent(tally.toolUseTurns, tally.turnsExpectingTool),
    percent(tally.jsonInTextTurns, tally.turnsExpectingTool),
    percent(tally.recoveredTurns, tally.turnsExpectingTool),
    `${percent(tally.verifiedFinishes, tally.runs)} (${tally.verifiedFinishes}/${tally.runs})`,
    ...extra.map((column) => column.cell(tally)),
  ]);
  const rule = headers.map((title, column) => '-'.repeat(Math.max(title.length, ...rows.map((row) => row[column]!.length))));
  return formatTable({ headers, rows: [rule, ...rows] }).join('\n');
}
