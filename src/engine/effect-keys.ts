// Redis keys of a run's tool effects beyond keys.ts, used only inside src/engine (the effects in
// src/engine/effects/ and the engine's deployment snapshot). Built from keys.run(runId) so each
// carries the run's hash tag and works inside the run's multi-key scripts on Redis Cluster.
// (Candidates to move into KeySpace.)
import type { KeySpace } from './keys.js';

/** Hash: `colors` and `fonts` (JSON) plus `version`, the source theme.css is generated from. */
export function themeKey(keys: KeySpace, runId: string): string {
  return `${keys.run(runId)}:theme`;
}

/** Hash: generated assets the site server serves beside any deployment (field `og-image.svg`). */
export function assetsKey(keys: KeySpace, runId: string): string {
  return `${keys.run(runId)}:assets`;
}

/** Hash: PNG screenshots (raw bytes) keyed by the toolUseId that took them. */
export function screenshotsKey(keys: KeySpace, runId: string): string {
  return `${keys.run(runId)}:screenshots`;
}

/** List: the run's write journal, one JSON entry {at_ms, tool, kind, target} per Redis write a
 * write tool made, stamped with Redis TIME by the same Lua script that wrote (effect-scripts.ts). */
export function writesKey(keys: KeySpace, runId: string): string {
  return `${keys.run(runId)}:writes`;
}
