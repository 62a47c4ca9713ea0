// GET /v1/overview: its query and its answer, documented field by field (the OpenAPI document is
// generated from these). Every series is an array aligned with `bucketStarts`, one value per bucket,
// as a chart reads columns.
import { z } from 'zod';
import { HEALTH_THRESHOLDS } from '../../domain/health-thresholds.js';
import { KILL_SWITCH_MODES } from '../../safety/kill-switch-mode.js';
import { DEFAULT_OVERVIEW_RANGE, OVERVIEW_RANGE_NAMES } from '../../domain/overview-ranges.js';
import { TENANT_PATTERN } from '../../domain/tenant-id.js';
import { TERMINAL_STATUSES } from '../../domain/run-outcomes.js';
import { FLEET_QUEUE_NAMES } from '../../jobs/fleet-queues.js';

export const overviewQuerySchema = z.strictObject({
  range: z
    .enum(OVERVIEW_RANGE_NAMES)
    .default(DEFAULT_OVERVIEW_RANGE)
    .describe(`The time range, ending now: ${OVERVIEW_RANGE_NAMES.join(', ')} (default ${DEFAULT_OVERVIEW_RANGE})`),
  tenant: z
    .string()
    .regex(TENANT_PATTERN, 'must be 1-64 letters, digits, _ and -, starting with a letter or digit')
    .optional()
    .describe('One tenant’s figures (admin keys: any tenant, default every tenant; other keys: only their own, which is also their default)'),
});

const series = (what: string) => z.array(z.number()).describe(`${what}, one value per bucket`);
const nullableSeries = (what: string) => z.array(z.number().nullable()).describe(`${what}, one value per bucket (null: no turn in it)`);
const rate = (what: string) => z.number().min(0).max(1).nullable().describe(`${what} over the whole range (null: nothing to divide by)`);

const costSeriesSchema = z.object({
  name: z.string().describe('The tenant or model (`other`: the rest, past the 8 that cost most)'),
  totalUsd: z.number().min(0),
  usd: series('USD of the runs created in the bucket'),
});

const healthTotalsSchema = z.object({
  turns: z.int().nonnegative(),
  turnsExpectingTool: z
    .int()
    .nonnegative()
    .describe('Turns where the runtime expected a tool call (every turn but the one whose answer ended the run as succeeded)'),
  turnsWithToolUse: z.int().nonnegative().describe('Of those, turns that ended in a native tool_use'),
  jsonInText: z.int().nonnegative().describe('Turns whose text held a tool call written as JSON or tags'),
  fenceOnlyStops: z.int().nonnegative().describe('Turns that stopped inside an open code fence'),
  recoveries: z.int().nonnegative().describe('Tool calls recovered from text'),
  toolUseRate: rate('turnsWithToolUse / turnsExpectingTool'),
  jsonInTextRate: rate('jsonInText / turns'),
  recoveryRate: rate('recoveries / turns'),
});

export const overviewHistorySchema = z
  .object({
    runs: z.object({
      total: z.int().nonnegative(),
      byStatus: z.object(
        Object.fromEntries(TERMINAL_STATUSES.map((status) => [status, z.int().nonnegative()])) as Record<(typeof TERMINAL_STATUSES)[number], z.ZodInt>,
      ),
      successRate: rate('succeeded / runs'),
      series: z.object(
        Object.fromEntries(TERMINAL_STATUSES.map((status) => [status, series(`Runs that ended ${status}`)])) as Record<
          (typeof TERMINAL_STATUSES)[number],
          z.ZodArray<z.ZodNumber>
        >,
      ),
    }),
    cost: z.object({
      totalUsd: z.number().min(0),
      byTenant: z.array(costSeriesSchema).describe('Most costly first'),
      byModel: z.array(costSeriesSchema).describe('Most costly first'),
    }),
    latency: z.object({
      turns: z.int().nonnegative().describe('Turns measured (every archived turn with an answer)'),
      turnP50Ms: z.number().nullable(),
      turnP99Ms: z.number().nullable(),
      modelP50Ms: z.number().nullable(),
      modelP99Ms: z.number().nullable(),
      series: z.object({
        turnP50Ms: nullableSeries('p50 of a turn, from its job’s start to its answer stored'),
        turnP99Ms: nullableSeries('p99 of a turn'),
        modelP50Ms: nullableSeries('p50 of the model call that answered'),
        modelP99Ms: nullableSeries('p99 of the model call'),
      }),
    }),
    health: healthTotalsSchema.extend({
      series: z.object({
        toolUseRate: nullableSeries('tool_use_rate'),
        jsonInTextRate: nullableSeries('json_in_text_rate'),
        recoveryRate: nullableSeries('recovery rate'),
        fenceOnlyStops: series('Fence-only stops'),
      }),
      byToolCount: z
        .array(healthTotalsSchema.extend({ toolCount: z.int().nonnegative().nullable().describe('Tools in the request (null: not recorded)') }))
        .describe('The same figures per number of tools offered in the request, fewest first'),
    }),
    killSwitchTrips: z.object({
      total: z.int().nonnegative(),
      series: series('Automatic kill switch trips (`killswitch-trip` events) of the bucket’s runs'),
    }),
  })
  .describe('Figures of the archived runs created in the range, each placed in the bucket of its run’s creation time');

const queueCountsSchema = z.object({
  waiting: z.int().nonnegative(),
  active: z.int().nonnegative(),
  delayed: z.int().nonnegative(),
  prioritized: z.int().nonnegative(),
  waitingChildren: z.int().nonnegative(),
  failed: z.int().nonnegative(),
  workers: z.int().nonnegative().describe('Workers connected now'),
});

export const overviewResponseSchema = z
  .object({
    range: z.enum(OVERVIEW_RANGE_NAMES),
    from: z.string().describe('The first bucket’s start (ISO)'),
    to: z.string().describe('The last bucket’s end (ISO): the last bucket holds now'),
    bucketSeconds: z.int().positive(),
    bucketStarts: z.array(z.string()).describe('Each bucket’s start (ISO), oldest first'),
    tenant: z.string().nullable().describe('The tenant the figures are of; null: every tenant (an admin without `?tenant=`)'),
    thresholds: z
      .object({
        toolUseRateAlarmBelow: z.literal(HEALTH_THRESHOLDS.toolUseRateAlarmBelow),
        toolUseRateCriticalBelow: z.literal(HEALTH_THRESHOLDS.toolUseRateCriticalBelow),
        recoveryRateAlarmAbove: z.literal(HEALTH_THRESHOLDS.recoveryRateAlarmAbove),
      })
      .describe('The alarm thresholds of the health signals, as the Prometheus rules use them'),
    history: z
      .object({
        state: z
          .enum(['on', 'off', 'unavailable'])
          .describe('`off`: no DATABASE_URL, so no figures over time; `unavailable`: PostgreSQL could not be reached just now'),
        message: z.string().nullable(),
      })
      .describe('Whether the figures over time (from run history) are in this answer'),
    figures: overviewHistorySchema.nullable().describe('null unless history is `on`'),
    queues: z
      .object(
        Object.fromEntries(FLEET_QUEUE_NAMES.map((name) => [name, queueCountsSchema])) as Record<(typeof FLEET_QUEUE_NAMES)[number], typeof queueCountsSchema>,
      )
      .nullable()
      .describe('Jobs per state and workers of each queue now, every shard added up (Redis); admin keys only, else null'),
    killSwitch: z
      .object({
        mode: z.enum(KILL_SWITCH_MODES).describe('The fleet scope’s mode now'),
        since: z.string().nullable(),
        reason: z.string().nullable(),
        scopesTripped: z.int().nonnegative().describe('Scopes read-only or half-open now (an admin sees every scope; a tenant its own and the fleet’s)'),
        recentTrips: z
          .array(z.object({ at: z.string(), scope: z.string(), cause: z.string(), tool: z.string(), rate: z.number() }))
          .describe('The switch’s last trips in the range, newest first (at most its 20 latest: KillSwitch.getState reads no more)'),
      })
      .describe('The kill switch now (Redis)'),
  })
  .describe('The fleet at a glance');
export type OverviewResponse = z.infer<typeof overviewResponseSchema>;
export type OverviewFigures = NonNullable<OverviewResponse['figures']>;
