// The crash experiment's check for writes acknowledged before a failover and lost with it (Redis
// replicates asynchronously, so a primary can acknowledge a write and die before any replica has
// it). What it watches: every run's event stream, read from the primaries while the builds run.
// An event the experiment has read had been applied and acknowledged by a primary; and every
// ledger write of the fleet carries an event in the same Lua step (recordToolResult writes the
// tool result, the trail entry and tool-call-end together; endRun the status and run-end), so a
// ledger entry lost in a failover takes its event with it. After the run the streams are read
// again: an event seen before and missing now is an acknowledged write that was lost.
//
// Lost is not the end of it: the fleet must repair it. A lost tool-call-end is repaired when the
// same tool call has a tool-call-end again (the reaper resumed the turn and the call ran again
// from the ledger, which no longer held it) and the ledger holds its result; a lost run-end when
// the run is terminal again. Whether the re-run duplicated an effect is the effect audit's
// question (audit-run-effects.ts), asked of the same runs.
import type { RunEngine, StoredEvent } from '../engine/index.js';

export interface AcknowledgedWriteAudit {
  /** Events read while the builds ran. */
  observed: number;
  /** Of those, gone after the run: acknowledged writes the failovers lost. */
  lost: number;
  lostByEvent: Record<string, number>;
  /** Lost ledger entries (tool-call-end, run-end) the fleet wrote again. */
  repaired: number;
  /** Lost ledger entries it did not: a silent loss (must be 0). */
  unrepaired: string[];
}

export interface AcknowledgedWriteObserver {
  /** Reads what each run appended since the last poll; errors (a failover in progress) skip a round. */
  poll(): Promise<void>;
  audit(): Promise<AcknowledgedWriteAudit>;
}

export function observeAcknowledgedWrites({ store, runIds }: { store: RunEngine; runIds: readonly string[] }): AcknowledgedWriteObserver {
  const seen = new Map<string, Map<string, StoredEvent>>(runIds.map((id) => [id, new Map()]));
  const cursors = new Map<string, string>(runIds.map((id) => [id, '-']));
  return {
    async poll() {
      await Promise.all(
        runIds.map(async (runId) => {
          try {
            const events = await store.readEvents(runId, cursors.get(runId)!, 10_000);
            for (const event of events) seen.get(runId)!.set(event.id, event);
            const last = events.at(-1);
            if (last) cursors.set(runId, last.id);
          } catch {
            // A node failing over: this run is read again next round, from the same cursor.
          }
        }),
      );
    },
    async audit() {
      let observed = 0;
      let lost = 0;
      let repaired = 0;
      const lostByEvent: Record<string, number> = {};
      const unrepaired: string[] = [];
      for (const runId of runIds) {
        const before = seen.get(runId)!;
        observed += before.size;
        const after = await store.readEvents(runId, '-', 100_000);
        const afterIds = new Set(after.map((event) => event.id));
        for (const [id, event] of before) {
          if (afterIds.has(id)) continue;
          lost += 1;
          lostByEvent[event.event] = (lostByEvent[event.event] ?? 0) + 1;
          if (event.event === 'tool-call-end') {
            const toolUseId = String(event.tool_use_id);
            const again = after.some((later) => later.event === 'tool-call-end' && later.tool_use_id === toolUseId);
            const ledger = await store.loadToolCall(runId, toolUseId);
            if (again && ledger !== 'missing' && 'recorded' in ledger) repaired += 1;
            else unrepaired.push(`${runId}: tool call ${toolUseId} (${String(event.tool)})`);
          } else if (event.event === 'run-end') {
            if (after.some((later) => later.event === 'run-end')) repaired += 1;
            else unrepaired.push(`${runId}: run-end`);
          }
        }
      }
      return { observed, lost, lostByEvent, repaired, unrepaired };
    },
  };
}
