// The index system: the fleet-wide indexes of runs, each the work list of one sweeper — the live
// runs (the reaper), the unarchived runs (the archive sweep), the owed webhook deliveries (the
// webhook sweep) — and each tenant's run index (listings). Their keys name runs of every Cluster
// slot, so they are written beside a run's transitions, never inside its scripts.
import { z } from 'zod';
import { TERMINAL_STATUSES } from '../../domain/run-outcomes.js';
import { fromFields, StoredRunInvalid } from '../run-record.js';
import type { RunRecord } from '../run-types.js';
import { defineOwedWebhookScripts } from '../owed-webhook-scripts.js';
import type { OwedWebhook, RunEnd } from '../engine-types.js';
import { EngineSystem } from './engine-system.js';

const owedWebhookSchema = z.strictObject({ status: z.enum(TERMINAL_STATUSES), endedAt: z.string() });

export class IndexSystem extends EngineSystem {
  /** Puts a run into the live-run index (the reaper's work list), scored by now: at its creation,
   * before its record exists, and when a failed run is reopened. */
  async enterLiveRun(runId: string): Promise<void> {
    await this.redis.zadd(this.keys.liveRuns(), Date.now(), runId);
  }

  /** Puts a run into its tenant's run index, scored by its creation (ms), the listing's order. */
  async enterTenantIndex(tenant: string, runId: string, createdAtMs: number): Promise<void> {
    await this.redis.zadd(this.keys.runsByTenant(tenant), createdAtMs, runId);
  }

  /** Takes an archived run off its tenant's run index (the listing finds it in history). */
  async leaveTenantIndex(tenant: string, runId: string): Promise<void> {
    await this.redis.zrem(this.keys.runsByTenant(tenant), runId);
  }

  /** A page of the tenant's run index, newest first: run ids with their creation time (ms),
   * from `maxScore` down, skipping `offset` entries (entries of equal score come in descending id
   * order, which a cursor continues from). */
  async tenantRunIndex(tenant: string, page: { maxScore: number | '+inf'; offset: number; count: number }): Promise<Array<{ runId: string; score: number }>> {
    const flat = await this.redis.zrevrangebyscore(this.keys.runsByTenant(tenant), page.maxScore, '-inf', 'WITHSCORES', 'LIMIT', page.offset, page.count);
    const entries: Array<{ runId: string; score: number }> = [];
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const score = Number(flat[index + 1]);
      if (!Number.isFinite(score)) throw new Error(`The run index of tenant ${tenant} holds a score that is not a number: ${flat[index + 1]}`);
      entries.push({ runId: flat[index]!, score });
    }
    return entries;
  }

  /** A page of the live-run index (ZSCAN: a run in it for the whole scan is returned at least
   * once; cursor '0' starts and ends a scan). */
  async scanLiveRuns(cursor: string, count: number): Promise<{ cursor: string; runIds: string[] }> {
    const [next, flat] = await this.redis.zscan(this.keys.liveRuns(), cursor, 'COUNT', count);
    const runIds: string[] = [];
    for (let index = 0; index < flat.length; index += 2) runIds.push(flat[index]!);
    return { cursor: next, runIds };
  }

  /** Drops runs from the live-run index: they have no record. (Runs that ended: handOffEndedRuns.) */
  async forgetLiveRuns(runIds: readonly string[]): Promise<void> {
    if (runIds.length > 0) await this.redis.zrem(this.keys.liveRuns(), ...runIds);
  }

  /** Moves runs the reaper found ended in the live-run index (their process died, or failed,
   * between the end and its bookkeeping) to the unarchived index, then out of the live one: the
   * same order as an end's own bookkeeping, so a run is never in neither. A run already archived
   * is added again only until its archive job finds it archived (or gone) and removes it. */
  async handOffEndedRuns(runIds: readonly string[], now = Date.now()): Promise<void> {
    if (runIds.length === 0) return;
    await this.redis.zadd(this.keys.unarchivedRuns(), 'NX', ...runIds.flatMap((runId) => [now, runId]));
    // Into the owed-webhook index too, whether or not they owe one (the reaper does not read their
    // records for it): the webhook sweep drops the entries of runs that owe nothing.
    await this.redis.zadd(this.keys.owedWebhooks(), 'GT', ...runIds.flatMap((runId) => [now, runId]));
    await this.redis.zrem(this.keys.liveRuns(), ...runIds);
  }

  /** A page of the owed-webhook index (ZSCAN), each run with its entry's score (when it ended, ms)
   * as stored, for forgetOwedWebhook. */
  async scanOwedWebhooks(cursor: string, count: number): Promise<{ cursor: string; runs: Array<{ runId: string; score: string; endedAtMs: number }> }> {
    const [next, flat] = await this.redis.zscan(this.keys.owedWebhooks(), cursor, 'COUNT', count);
    const runs: Array<{ runId: string; score: string; endedAtMs: number }> = [];
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const endedAtMs = Number(flat[index + 1]);
      if (!Number.isFinite(endedAtMs)) throw new Error(`The owed-webhook index holds a score that is not a number: ${flat[index + 1]} (run ${flat[index]})`);
      runs.push({ runId: flat[index]!, score: flat[index + 1]!, endedAtMs });
    }
    return { cursor: next, runs };
  }

  /** The run and the delivery its last end owes, in one read: null when the run has no record,
   * `owed: null` when it owes none (enqueued already, or no webhook). */
  async readOwedWebhook(runId: string): Promise<{ run: RunRecord; owed: OwedWebhook | null } | null> {
    const fields = await this.redis.hgetall(this.keys.run(runId));
    if (!fields.id) return null;
    const run = fromFields(fields);
    const raw = fields.webhookOwed;
    if (!raw) return { run, owed: null };
    let decoded: unknown;
    try {
      decoded = JSON.parse(raw);
    } catch {
      throw new StoredRunInvalid(runId, 'webhookOwed', 'not JSON');
    }
    const parsed = owedWebhookSchema.safeParse(decoded);
    if (!parsed.success) throw new StoredRunInvalid(runId, 'webhookOwed', parsed.error.issues[0]?.message ?? 'invalid');
    return { run, owed: { raw, ...parsed.data } };
  }

  /** Clears the run's owed-delivery record once its job exists; false when the record is no
   * longer `owed` (a later end replaced it, or it was settled already). */
  async settleOwedWebhook(runId: string, owed: OwedWebhook): Promise<boolean> {
    return (await defineOwedWebhookScripts(this.redis).bfSettleOwedWebhook(this.keys.run(runId), owed.raw)) === 1;
  }

  /** Drops a run's owed-webhook index entry if it still has the score the caller read. */
  async forgetOwedWebhook(runId: string, score: string): Promise<boolean> {
    return (await defineOwedWebhookScripts(this.redis).bfForgetOwedWebhook(this.keys.owedWebhooks(), runId, score)) === 1;
  }

  /** A page of the unarchived-run index (ZSCAN, as scanLiveRuns), each run with when it ended (ms). */
  async scanUnarchivedRuns(cursor: string, count: number): Promise<{ cursor: string; runs: Array<{ runId: string; endedAtMs: number }> }> {
    const [next, flat] = await this.redis.zscan(this.keys.unarchivedRuns(), cursor, 'COUNT', count);
    const runs: Array<{ runId: string; endedAtMs: number }> = [];
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const endedAtMs = Number(flat[index + 1]);
      if (!Number.isFinite(endedAtMs)) throw new Error(`The unarchived-run index holds a score that is not a number: ${flat[index + 1]} (run ${flat[index]})`);
      runs.push({ runId: flat[index]!, endedAtMs });
    }
    return { cursor: next, runs };
  }

  /** How many runs ended and are not archived yet (the archive backlog). */
  async countUnarchivedRuns(): Promise<number> {
    return this.redis.zcard(this.keys.unarchivedRuns());
  }

  /** Drops a run from the unarchived index: its history is in PostgreSQL, or its keys are gone. */
  async forgetUnarchivedRun(runId: string): Promise<void> {
    await this.redis.zrem(this.keys.unarchivedRuns(), runId);
  }

  /** After a run ended (LifecycleSystem.ended): from the reaper's work list to the archive's and,
   * when its end owes a webhook delivery, into the owed-webhook index. Failures are logged, never
   * thrown: the reaper hands over what is left (handOffEndedRuns). */
  async handOverEnded(end: RunEnd): Promise<void> {
    // From the reaper's work list to the archive's (docs/history.md#every-finished-run-is-archived):
    // first into the unarchived index, then out of the live one, so at every moment the run is in
    // one of the two. Both are fleet-wide keys in another slot than the run's, so this cannot be
    // part of the ending script on Redis Cluster; a crash or a failure in between leaves the run
    // in the live-run index, where the reaper finds it ended and hands it over (handOffEndedRuns).
    // A run whose end owes a webhook delivery enters the owed-webhook index at the same time, and
    // before it leaves the live one, for the same reason (docs/webhooks.md#guarantee); a run without
    // a webhook costs nothing more. Two commands sent together, not a pipeline: the two indexes are
    // in different Cluster slots.
    const now = Date.now();
    const handedOver = await Promise.all([
      this.redis.zadd(this.keys.unarchivedRuns(), 'NX', now, end.runId),
      ...(end.webhookOwed ? [this.redis.zadd(this.keys.owedWebhooks(), 'GT', now, end.runId)] : []),
    ])
      .then(() => true)
      .catch((error: unknown) => {
        this.logger?.warn(
          { run_id: end.runId, err: error instanceof Error ? error.message : String(error) },
          'unarchived-run (or owed-webhook) index entry not added; the reaper hands the run over',
        );
        return false;
      });
    if (handedOver) {
      await this.redis.zrem(this.keys.liveRuns(), end.runId).catch((error: unknown) => {
        this.logger?.warn(
          { run_id: end.runId, err: error instanceof Error ? error.message : String(error) },
          'live-run index entry not removed; the reaper drops it',
        );
      });
    }
  }
}
