// A run's screenshots: the PNG bytes each screenshot call took, kept under its tool_use_id for the
// operator and later review. Not fenced: screenshot is a read tool (it changes nothing the site
// serves), and the key per tool_use_id makes a retried call overwrite its own picture only.
import { screenshotsKey } from '../effect-keys.js';
import type { RunEngine } from '../run-engine.js';

export async function saveScreenshot({ engine, runId, toolUseId, png }: { engine: RunEngine; runId: string; toolUseId: string; png: Buffer }): Promise<void> {
  await engine.redis.hset(screenshotsKey(engine.keys, runId), toolUseId, png);
}

/** The PNG a screenshot call stored, or null. */
export async function readScreenshot({ engine, runId, toolUseId }: { engine: RunEngine; runId: string; toolUseId: string }): Promise<Buffer | null> {
  return engine.redis.hgetBuffer(screenshotsKey(engine.keys, runId), toolUseId);
}
