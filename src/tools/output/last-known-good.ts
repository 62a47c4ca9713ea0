// Last-known-good outputs: which tools' outputs may be reused in degrade mode, and how widely. The
// cache itself is the engine's (RunEngine.saveLastKnownGood / loadLastKnownGood:
// src/engine/systems/last-known-good.ts). Write tools never use it: their output describes an
// effect this call did not have.
import type { LastKnownGoodScope } from '../../domain/tool-output-contract.js';

/** The scope in force: write tools never, others per their contract (default per_run). */
export function lastKnownGoodScopeOf({ writes, scope }: { writes: boolean; scope: LastKnownGoodScope | undefined }): LastKnownGoodScope {
  return writes ? 'never' : (scope ?? 'per_run');
}
