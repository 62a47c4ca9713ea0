// Counts a run's side effects from the workspace itself — the write journal every effect
// appends to in the same Lua step as the effect, the deployments, the ledger's trail — and
// reports any effect that happened more often than the tool call that caused it.
import type { RunEngine } from './run-engine.js';
import { readWriteJournal } from './write-journal.js';

export interface EffectAudit {
  writeCalls: number;
  writeEffects: number;
  deployCalls: number;
  deployments: number;
  publishCalls: number;
  publishEffects: number;
  duplicates: string[];
}

export async function auditRunEffects(store: RunEngine, runId: string): Promise<EffectAudit> {
  const trail = await store.getTrail(runId);
  const okCalls = (tool: string) => new Set(trail.filter((entry) => entry.ok && entry.tool === tool).map((entry) => entry.toolUseId));
  const journal = await readWriteJournal({ engine: store, runId });
  const effectsOf = (tool: string, kind: string) => journal.filter((entry) => entry.tool === tool && entry.kind === kind);
  const duplicates: string[] = [];
  const perCall = (tool: string, kind: string) => {
    // Per call and target where the journal names the call: a later call rewriting the same path
    // is a second effect the model asked for, not a repeat.
    const counts = new Map<string, { target: string; count: number }>();
    for (const entry of effectsOf(tool, kind)) {
      const key = `${entry.call ?? ''}\n${entry.target}`;
      const seen = counts.get(key) ?? { target: entry.target, count: 0 };
      seen.count += 1;
      counts.set(key, seen);
    }
    for (const { target, count } of counts.values()) if (count > 1 && target) duplicates.push(`${tool} ${target} took effect ${count} times`);
  };
  perCall('write_file', 'file');
  perCall('publish', 'publish');
  const writeCalls = okCalls('write_file').size;
  const deployCalls = okCalls('deploy').size;
  const publishCalls = okCalls('publish').size;
  const deployments = await store.countDeployments(runId);
  if (deployments > deployCalls) duplicates.push(`${deployments} deployments for ${deployCalls} deploy calls`);
  return {
    writeCalls,
    writeEffects: effectsOf('write_file', 'file').length,
    deployCalls,
    deployments,
    publishCalls,
    publishEffects: effectsOf('publish', 'publish').length,
    duplicates,
  };
}
