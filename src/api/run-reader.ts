// The one way the API reads runs (issue #21): a run Redis holds (live, or ended and within its
// retention) is read from the run engine; a run Redis no longer has is read from run history in
// PostgreSQL, when the fleet has one (FleetContext.history). A run in both answers the same either
// way: the archive holds everything the API shows of it. Every read route goes through here —
// GET /v1/runs/:id, GET /v1/runs, GET /v1/runs/:id/events and the sites origin's run lookups.
//
// Redis is always asked first and history second, never the other way round: the archive is
// committed before a run's keys start to expire, so a run missing from Redis when Redis is read is
// in history when history is read next (if it was ever archived).
import type { FleetContext } from '../fleet/fleet-context.js';
import type { StoredEvent, RunRecord } from '../engine/index.js';
import type { ArchivedEvent, ArchivedRun } from '../history/run-archive.js';
import { apiErrors } from './api-errors.js';
import type { RunView } from './api-schemas.js';
import { RUN_ID_PATTERN } from '../domain/ids.js';
import { archivedRunViewRecord } from './archived-run-view-record.js';
import { readHistory } from './history-unavailable.js';
import { listRuns, type RunListFilter, type RunPage } from './list-runs.js';
import type { RunListPosition } from './run-list-cursor.js';
import { toRunView } from './run-view.js';

/** A run as found: its record in Redis, or its archive in history. */
export type FoundRun = { source: 'redis'; run: RunRecord } | { source: 'history'; run: ArchivedRun };

const EVENT_PAGE_SIZE = 1_000;

/** An archived event as RunEngine.readEvents returned it while the run was in Redis: the stream
 * id as `id`, the run id and the envelope fields beside the event's own. */
function storedEventOf(runId: string, event: ArchivedEvent): StoredEvent {
  // archivedEventSchema checked the name and the fields readers key on (hasRunEventKeys).
  return { ...event.data, run_id: runId, step: event.step, event: event.event, at: event.at, id: event.streamId } as StoredEvent;
}

export class RunReader {
  constructor(private readonly fleet: FleetContext) {}

  /** The run, or null: a malformed id, an unknown one and (with `tenant`) another tenant's run are
   * all null alike, so no answer confirms that an id exists elsewhere. `tenant` omitted: any
   * tenant (the public sites). */
  async findRun({ runId, tenant }: { runId: string; tenant?: string | undefined }): Promise<FoundRun | null> {
    if (!RUN_ID_PATTERN.test(runId)) return null;
    const record = await this.fleet.store.getRun(runId);
    if (record) return tenant === undefined || record.tenant === tenant ? { source: 'redis', run: record } : null;
    const history = this.fleet.history;
    if (!history) return null;
    const archived = await readHistory(() => history.getRun(runId, tenant));
    return archived ? { source: 'history', run: archived } : null;
  }

  /** Like findRun, but throws ApiError run_not_found instead of answering null. */
  async requireRun({ runId, tenant }: { runId: string; tenant?: string | undefined }): Promise<FoundRun> {
    const found = await this.findRun({ runId, tenant });
    if (!found) throw apiErrors.runNotFound();
    return found;
  }

  /** GET /v1/runs/:id: the run's view, or throws run_not_found (`tenant` undefined: any tenant's,
   * for an admin key). */
  async runView({ runId, tenant }: { runId: string; tenant: string | undefined }): Promise<RunView> {
    const { fleet } = this;
    const view = { sitesBaseUrl: fleet.sitesBaseUrl };
    if (!RUN_ID_PATTERN.test(runId)) throw apiErrors.runNotFound();
    // The workspace listing before the record: every key of a run expires at the same instant (one
    // script sets them all: RunEngine.expireArchivedRun), so a record still there after the listing
    // was read proves the listing was read while the run's keys existed — never an empty workspace
    // read from keys that had just expired beside a record that had not.
    const files = await fleet.store.listFiles(runId);
    const found = await this.requireRun({ runId, tenant });
    if (found.source === 'redis') return toRunView({ run: found.run, files, ...view });
    return toRunView({ run: archivedRunViewRecord(found.run), files: found.run.files, ...view });
  }

  /** GET /v1/runs: one page of the tenant's runs, live and archived merged (list-runs.ts). */
  async listRuns({ filter, limit, after }: { filter: RunListFilter; limit: number; after: RunListPosition | null }): Promise<RunPage> {
    return listRuns({ fleet: this.fleet, filter, limit, after });
  }

  /** Every event of the run after `afterId` ('-': from the start), oldest first: from Redis while it
   * holds the run's stream, else from history. */
  async readEvents({ found, afterId }: { found: FoundRun; afterId: string }): Promise<StoredEvent[]> {
    if (found.source === 'redis') {
      const events = await this.readRedisEvents(found.run.id, afterId);
      // The record after the stream, as in runView: still there, the stream was read whole before
      // the run's keys expired; gone, what was read may be cut short, and history has it all.
      const [status] = await this.fleet.store.runStatuses([found.run.id]);
      if (status?.state !== 'missing' || !this.fleet.history) return events;
      const archived = await this.readHistoryEvents(found.run.id, afterId);
      // Keys gone without an archive (removed by hand): what was read is all there is.
      return archived.length > 0 ? archived : events;
    }
    return this.readHistoryEvents(found.run.id, afterId);
  }

  private async readRedisEvents(runId: string, afterId: string): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    for (let cursor = afterId; ;) {
      const page = await this.fleet.store.readEvents(runId, cursor, EVENT_PAGE_SIZE);
      events.push(...page);
      const last = page.at(-1);
      if (page.length < EVENT_PAGE_SIZE || !last) return events;
      cursor = last.id;
    }
  }

  private async readHistoryEvents(runId: string, afterId: string): Promise<StoredEvent[]> {
    const history = this.fleet.history;
    if (!history) return [];
    const events: StoredEvent[] = [];
    for (let cursor = afterId; ;) {
      const page = await readHistory(() => history.readEvents(runId, cursor, EVENT_PAGE_SIZE));
      events.push(...page.map((event) => storedEventOf(runId, event)));
      const last = page.at(-1);
      if (page.length < EVENT_PAGE_SIZE || !last) return events;
      cursor = last.streamId;
    }
  }
}
