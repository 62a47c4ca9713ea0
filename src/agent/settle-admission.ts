// Settling a call's admission reservation (src/model/model-rate-limiter.ts) from a model turn.
import type { TurnContext } from './turn-context.js';

/** Best effort: a settle that fails leaves the reservation to expire; it must never cost the
 * answer already paid for. */
export function settleAdmission({
  context,
  settle,
}: {
  context: Pick<TurnContext, 'deps' | 'runId' | 'turn'>;
  settle: () => Promise<unknown> | undefined;
}): Promise<unknown> | undefined {
  return settle()?.catch((error: unknown) =>
    context.deps.logger.warn(
      { run_id: context.runId, step: context.turn, err: error instanceof Error ? error.message : String(error) },
      'admission settle failed',
    ),
  );
}
