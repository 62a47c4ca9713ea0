// A run's event stream entry (`data` field holding the JSON trace line) as the API sends it.
// Mirrors RunEngine.readEvents, for entries that arrive through XREAD instead of XRANGE.
import type { StoredEvent } from '../../engine/run-engine.js';

/** Turns one [id, fields] stream entry into a StoredEvent carrying its stream id. */
export function parseStreamEntry([id, fields]: [string, string[]]): StoredEvent {
  const dataIndex = fields.indexOf('data');
  const raw = dataIndex >= 0 ? fields[dataIndex + 1] : undefined;
  return { id, ...(JSON.parse(raw ?? '{}') as object) } as StoredEvent;
}
