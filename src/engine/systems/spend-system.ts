// The spend system: a tenant's spend per UTC day and month (tenant-spend.ts), added once per paid
// answer or failed call. The tenant's keys are in another Cluster slot than the run's, so a
// charge is two steps: the run's script leaves the spend pending on the turn, this adds it to the
// tenant and drops it from the turn.
import { execPipeline } from '../../redis/redis-pipelines.js';
import type { Usage } from '../run-types.js';
import {
  decodeTenantSpend,
  defineTenantSpendScripts,
  type PendingSpend,
  pendingSpendField,
  pendingSpendSchema,
  spendIncrements,
  spendPeriods,
  TENANT_SPEND_TTL_SECONDS,
  type TenantSpendPeriod,
} from '../tenant-spend.js';
import { type EngineContext, EngineSystem } from './engine-system.js';

export class SpendSystem extends EngineSystem {
  private readonly tenantSpendScripts: ReturnType<typeof defineTenantSpendScripts>;

  constructor(context: EngineContext) {
    super(context);
    this.tenantSpendScripts = defineTenantSpendScripts(context.redis);
  }

  /**
   * Adds an answer's spend to its tenant's day and month (bfAddTenantSpend, once per marker), then
   * drops it from the turn. Two steps because the tenant's keys are in another Cluster slot than
   * the run's (tenant-spend.ts); until the second, the spend stays pending on the turn, where the
   * turn's next load finds it.
   */
  async addTenantSpend(runId: string, turn: number, tenant: string, pending: PendingSpend): Promise<void> {
    if (tenant) {
      const increments = spendIncrements(pending);
      if (increments.length > 0) {
        const keys = this.keys;
        await this.tenantSpendScripts.bfAddTenantSpend(
          keys.tenantSpend(tenant, `day:${pending.day}`),
          keys.tenantSpend(tenant, `month:${pending.month}`),
          keys.tenantSpendApplied(tenant, pending.day),
          pending.marker,
          TENANT_SPEND_TTL_SECONDS.day,
          TENANT_SPEND_TTL_SECONDS.month,
          TENANT_SPEND_TTL_SECONDS.marker,
          ...increments,
        );
      }
    }
    await this.redis.hdel(this.keys.turn(runId, turn), pendingSpendField(pending.marker));
  }

  /** addTenantSpend, but a failure on the tenant's side is logged and the spend stays pending on
   * the turn: the failed call's job is retried, and its next attempt's loadTurn adds it. */
  private async addTenantSpendOrKeep(runId: string, turn: number, tenant: string, pending: PendingSpend): Promise<void> {
    try {
      await this.addTenantSpend(runId, turn, tenant, pending);
    } catch (error) {
      this.logger?.error(
        { run_id: runId, step: turn, err: error instanceof Error ? error.message : String(error) },
        'tenant spend not added; kept pending on the turn',
      );
    }
  }

  /**
   * Charges a call that failed after its stream started (model-client.ts paidUsageOfFailedCall):
   * the run's usage and cost (ended or not) and, once, its tenant's day and month. `callId` tells
   * the charge apart from the answers of the same turn (the request id, when the API gave one).
   */
  async chargeFailedCall(runId: string, turn: number, charge: { callId: string; usage: Usage; costMicroUsd: number }): Promise<void> {
    const pending: PendingSpend = {
      ...spendPeriods(new Date()),
      costMicroUsd: charge.costMicroUsd,
      usage: charge.usage,
      marker: `${runId}:${turn}:failed:${charge.callId}`,
    };
    const reply = await this.scripts.bfChargeCall(
      this.keys.run(runId),
      this.keys.turn(runId, turn),
      JSON.stringify(charge.usage),
      String(charge.costMicroUsd),
      JSON.stringify(pending),
    );
    if (reply[0] === 1) await this.addTenantSpendOrKeep(runId, turn, reply[1] ?? '', pending);
  }

  /** A spend a committed answer left pending on its turn (the worker died between the two steps):
   * added now. One that does not decode cannot be counted; it is logged and dropped. */
  async addPendingTenantSpend(runId: string, turn: number, tenant: string, field: string, raw: string): Promise<void> {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
    const parsed = pendingSpendSchema.safeParse(value);
    if (!parsed.success) {
      this.logger?.error({ run_id: runId, step: turn, pending: raw.slice(0, 200) }, 'pending tenant spend does not decode; dropped');
      await this.redis.hdel(this.keys.turn(runId, turn), field);
      return;
    }
    await this.addTenantSpend(runId, turn, tenant, parsed.data);
  }

  /** The tenant's spend on the UTC day and in the UTC month of `at` (default now): cost and tokens
   * by class, validated; zero when nothing was spent (or the counters expired). */
  async tenantSpend(tenant: string, at: Date = new Date()): Promise<{ day: TenantSpendPeriod; month: TenantSpendPeriod }> {
    const { day, month } = spendPeriods(at);
    const dayKey = this.keys.tenantSpend(tenant, `day:${day}`);
    const monthKey = this.keys.tenantSpend(tenant, `month:${month}`);
    // One slot (the tenant's hash tag): a pipeline of both reads is one round trip.
    const [dayFields, monthFields] = (await execPipeline(this.redis.pipeline().hgetall(dayKey).hgetall(monthKey), 2)) as Array<Record<string, string>>;
    return {
      day: decodeTenantSpend({ key: dayKey, period: day, fields: dayFields ?? {} }),
      month: decodeTenantSpend({ key: monthKey, period: month, fields: monthFields ?? {} }),
    };
  }
}
