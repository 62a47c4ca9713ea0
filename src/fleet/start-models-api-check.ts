// The catalog check of one process (src/model/models-api-check.ts), started at boot by the
// processes that decide on models — the API (submits) and the model workers (turns) — and run
// again every BUILDFLEET_MODELS_API_CHECK_INTERVAL_MS. Boot waits for the first check a short
// while, so a model only the Models API describes is accepted from the first request; a slow or
// failing API never holds the process back longer (the check then completes in the background).
import type { ModelsApiCheckObserver } from '../model/models-api-check.js';
import { ModelsApiCheck, type ModelsApiSource } from '../model/models-api-check.js';
import { modelsApiSourceOf } from '../providers/models-api-source.js';
import type { FleetContext } from './fleet-context.js';

/** The longest boot waits for the first check. */
const BOOT_WAIT_MS = 10_000;

/** Starts the check, or returns null when it is off (interval 0, or no provider with a Models API). */
export async function startModelsApiCheck({
  fleet,
  observer,
  source,
}: {
  fleet: Pick<FleetContext, 'config' | 'logger' | 'modelDescriptions'>;
  /** The process's metrics (FleetMetrics.modelsApiCheckObserver). */
  observer?: ModelsApiCheckObserver | undefined;
  /** The Models API to read; default: the fleet's Anthropic provider (providers/models-api-source.ts). */
  source?: ModelsApiSource | undefined;
}): Promise<ModelsApiCheck | null> {
  const intervalMs = fleet.config.BUILDFLEET_MODELS_API_CHECK_INTERVAL_MS;
  if (intervalMs === 0) {
    fleet.logger.info(
      { event: 'models-api-check-off', reason: 'interval' },
      'the model catalog is not checked against a Models API (BUILDFLEET_MODELS_API_CHECK_INTERVAL_MS=0)',
    );
    return null;
  }
  const resolved = source ?? modelsApiSourceOf({ config: fleet.config });
  if (!resolved) {
    fleet.logger.info(
      { event: 'models-api-check-off', reason: 'provider', provider: fleet.config.BUILDFLEET_PROVIDER },
      'the model catalog is not checked: no provider of this fleet has a Models API',
    );
    return null;
  }
  const check = new ModelsApiCheck({
    source: resolved,
    overrides: fleet.config.BUILDFLEET_MODEL_CAPABILITIES,
    descriptions: fleet.modelDescriptions,
    logger: fleet.logger,
    intervalMs,
    ...(observer ? { observer } : {}),
  });
  let timeout: NodeJS.Timeout | undefined;
  await Promise.race([check.start(), new Promise<void>((resolve) => (timeout = setTimeout(resolve, BOOT_WAIT_MS)))]);
  clearTimeout(timeout);
  return check;
}
