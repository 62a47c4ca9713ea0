// The turn system: a model turn's state (`keys.turn`, the transcript) — load it in one round trip,
// commit its input and claim it, commit the model's answer and outcome once (with the run's end when
// the decision ends it), park for input and answer the question, and the reaper's view of a
// stalled turn and its hand-over to a new job.
import type { RunErrorCode, TerminalStatus } from '../../domain/run-outcomes.js';
import { redactText, redactValue } from '../../telemetry/redact-secrets.js';
import { fromFields, pairsToFields, StoredRunInvalid, toFields } from '../run-record.js';
import { decodeRunStatus } from '../run-summary.js';
import type { TurnOutcome } from '../turn-outcome.js';
import { type RunCounters, type Usage, usageSchema } from '../run-types.js';
import type { Phase } from '../../domain/profile.js';
import { type ClaimDurability, confirmClaimDurable } from '../effects/claim-durability.js';
import { isPendingSpendField, type PendingSpend, spendPeriods } from '../tenant-spend.js';
import type { RunEvent, StoredToolResult, TrailEntry, TurnInspection, TurnView } from '../engine-types.js';
import { agentOf, decodeTraceContext, parseOutcome, parseToolResult, parseTrailEntry } from './stored-values.js';
import { type EngineContext, EngineSystem } from './engine-system.js';
import type { EventSystem } from './event-system.js';
import type { SpendSystem } from './spend-system.js';
import type { LifecycleSystem } from './lifecycle-system.js';

/** Refusals of bfAddTenantSpend (tenant-spend.ts) and Redis's WRONGTYPE: damage no retry repairs. */
const DAMAGED_TENANT_SPEND = /WRONGTYPE|bfAddTenantSpend: .* is (?:a |not )/;

/** The most of an answer its input-receive event carries (the whole answer is the call's result). */
const MAX_ANSWER_IN_EVENT = 200;
export class TurnSystem extends EngineSystem {
  constructor(
    context: EngineContext,
    private readonly events: EventSystem,
    private readonly lifecycle: LifecycleSystem,
    private readonly spend: SpendSystem,
  ) {
    super(context);
  }

  /** Everything a model turn needs, in one round trip (bfLoadTurn). */
  async loadTurn(runId: string, turn: number): Promise<TurnView | null> {
    const cached = this.transcripts.get(runId);
    // From the last cached message on: it is compared, so a transcript changed by another
    // process (a pause_turn continuation rewrites the last message) is noticed and re-read.
    const from = cached ? cached.messages.length - 1 : 0;
    const keys = this.keys;
    const [runPairs, turnPairs, previousRaw, resultPairs, length, tail, trailRaw] = await this.scripts.bfLoadTurn(
      keys.run(runId),
      keys.turn(runId, turn),
      keys.turn(runId, turn - 1),
      keys.messages(runId),
      keys.results(runId),
      keys.trail(runId),
      from,
    );
    const runFields = pairsToFields(runPairs);
    if (!runFields.id) return null;
    const turnFields = pairsToFields(turnPairs);
    // Answers charged by an attempt that failed before adding their spend to the tenant. A
    // transient failure fails this attempt too (its retry tries again); a tenant counter that is
    // damaged (not a hash, not a number: no retry can add to it) is logged and the spend kept on
    // the turn, where loading the turn again adds it once the counter is repaired — the run's own
    // accounting is complete, and one damaged counter must not stop every run of its tenant.
    for (const [field, raw] of Object.entries(turnFields)) {
      if (!isPendingSpendField(field)) continue;
      try {
        await this.spend.addPendingTenantSpend(runId, turn, runFields.tenant ?? '', field, raw);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (!DAMAGED_TENANT_SPEND.test(message)) throw error;
        this.logger?.error({ run_id: runId, step: turn, field, err: message }, 'tenant spend counter damaged; the spend stays pending on the turn');
      }
    }
    let messages: unknown[];
    let transcriptCharacters: number;
    // Appended only where the cached transcript still ends (another load of the same run in this
    // process may have replaced it meanwhile): anything else is a miss.
    const hit =
      cached && tail[0] === cached.lastRaw && from + tail.length === Number(length) ? this.transcripts.appendAt(runId, from + 1, tail.slice(1)) : undefined;
    if (hit) {
      messages = [...hit.messages];
      transcriptCharacters = hit.bytes;
    } else {
      const all = from === 0 ? tail : await this.redis.lrange(keys.messages(runId), 0, -1);
      const loaded = this.transcripts.replace(runId, all);
      messages = [...loaded.messages];
      transcriptCharacters = loaded.bytes;
    }
    const results = new Map<string, StoredToolResult | null>();
    for (let index = 0; index + 1 < resultPairs.length; index += 2) {
      results.set(resultPairs[index]!, resultPairs[index + 1] ? parseToolResult(resultPairs[index + 1]!) : null);
    }
    return {
      run: fromFields(runFields),
      turn: {
        inputCommitted: turnFields.inputCommitted === '1',
        claimedBy: turnFields.claimedBy ?? null,
        outcome: turnFields.outcome ? parseOutcome(turnFields.outcome) : null,
        overloadSince: turnFields.overloadSince ? Number(turnFields.overloadSince) : null,
      },
      previousOutcome: previousRaw ? parseOutcome(previousRaw) : null,
      results,
      messages,
      transcriptCharacters,
      trail: trailRaw.map(parseTrailEntry),
    };
  }

  /**
   * Commits the turn's user input once and claims the turn for `jobId`: the run becomes `running`
   * at this turn in `phase` (a pending phase taken, an answered question cleared), with the input
   * messages and the events that describe it. Returns the turn's owner, or 'terminal' / 'missing'.
   */
  async startTurn(
    runId: string,
    turn: number,
    input: { jobId: string; phase: Phase; messages: unknown[]; events: RunEvent[] },
  ): Promise<{ owner: string; committedNow: boolean; appendedCharacters: number } | 'terminal' | 'missing'> {
    const encoded = input.events.map((event) => this.events.encode(event));
    const raws = input.messages.map((message) => JSON.stringify(message));
    const keys = this.keys;
    const reply = await this.scripts.bfStartTurn(
      keys.run(runId),
      keys.turn(runId, turn),
      keys.messages(runId),
      keys.events(runId),
      JSON.stringify(toFields({ status: 'running', phase: input.phase, pendingPhase: null, turn, question: null })),
      input.jobId,
      encoded.length,
      ...encoded.map((event) => event.json),
      ...raws,
    );
    if (reply[0] === -1) return 'missing';
    if (reply[0] === -2) return 'terminal';
    if (reply[0] === 1) {
      this.events.emitted(encoded);
      this.transcripts.appendIfAt(runId, Number(reply[2]) - raws.length, raws);
    }
    return { owner: reply[1] ?? '', committedNow: reply[0] === 1, appendedCharacters: raws.reduce((sum, raw) => sum + raw.length, 0) };
  }

  /**
   * Commits the model's answer and the turn's outcome once (bfCommitAnswer). When the decision
   * ends the run, `end` ends it in the same step. Returns the outcome that stands — this one, or
   * the one a concurrent owner committed first — or 'terminal' when the run had ended.
   */
  async commitAnswer(
    runId: string,
    turn: number,
    commit: {
      response: unknown;
      /** The API's id of the answer (msg_…): marks its charge to the tenant once. */
      answerId: string;
      usage: Usage;
      /** The answer's cost in whole micro-dollars (src/domain/usage-cost.ts), added to the run's
       * and, once committed, to its tenant's day and month. */
      costMicroUsd: number;
      assistant: unknown | null;
      placement: 'append' | 'replace_last';
      /** What the run carries into the next turn: its counters, the max_tokens of the next call,
       * and the question of an ask_user call the answer made (null: none). */
      next: { counters: RunCounters; maxTokens: number; question: { toolUseId: string; question: string } | null };
      outcome: TurnOutcome;
      events: RunEvent[];
      answered: Array<{ result: StoredToolResult; trail: TrailEntry }>;
      end: { status: TerminalStatus; result: string | null; error: { code: RunErrorCode; message: string } | null } | null;
    },
  ): Promise<{ outcome: TurnOutcome; committed: boolean; usage: Usage | null; costMicroUsd: number | null } | 'terminal'> {
    const keys = this.keys;
    // One marker per paid answer: a second answer to the same turn (another attempt of the job
    // committed first) is a second charge, not a repeat of the first.
    const pending: PendingSpend = {
      ...spendPeriods(new Date()),
      costMicroUsd: commit.costMicroUsd,
      usage: commit.usage,
      marker: `${runId}:${turn}:${commit.answerId}`,
    };
    const endError = commit.end?.error ? { code: commit.end.error.code, message: redactText(commit.end.error.message) } : null;
    const events = [...commit.events];
    if (commit.end) events.push(this.events.runEndEvent(runId, turn, commit.end.status, endError));
    const encoded = events.map((event) => this.events.encode(event));
    const endFields = commit.end ? JSON.stringify(toFields({ status: commit.end.status, result: commit.end.result, error: endError, question: null })) : '';
    const answered = commit.answered.flatMap(({ result, trail }) => [trail.toolUseId, JSON.stringify(redactValue(result)), JSON.stringify(trail)]);
    const assistantRaw = commit.assistant === null ? '' : JSON.stringify(commit.assistant);
    const reply = await this.scripts.bfCommitAnswer(
      keys.run(runId),
      keys.turn(runId, turn),
      keys.messages(runId),
      keys.events(runId),
      keys.results(runId),
      keys.trail(runId),
      JSON.stringify(commit.response),
      JSON.stringify(commit.usage),
      assistantRaw,
      commit.placement,
      JSON.stringify(nextTurnFields(turn, commit.next)),
      JSON.stringify(commit.outcome),
      endFields,
      String(commit.costMicroUsd),
      JSON.stringify(pending),
      encoded.length,
      ...encoded.map((event) => event.json),
      ...answered,
    );
    if (reply[0] === -1) return 'terminal';
    if (reply[0] === -2) {
      // The run had ended, but the answer was paid for: its tenant pays too.
      await this.spend.addTenantSpend(runId, turn, reply[1], pending);
      return 'terminal';
    }
    if (reply[0] === 0) {
      this.transcripts.forget(runId);
      await this.spend.addTenantSpend(runId, turn, reply[2], pending);
      return { outcome: parseOutcome(reply[1]), committed: false, usage: null, costMicroUsd: null };
    }
    this.events.emitted(encoded);
    if (assistantRaw) {
      if (commit.placement === 'replace_last') this.transcripts.replaceLast(runId, assistantRaw);
      else this.transcripts.appendIfAt(runId, null, [assistantRaw]);
    }
    const usage = usageSchema.parse(JSON.parse(reply[1]));
    if (reply[2] === 1 && commit.end) {
      await this.lifecycle.ended({
        runId,
        tenant: reply[3],
        agent: agentOf(reply[6]),
        turn,
        status: commit.end.status,
        errorCode: endError?.code ?? null,
        webhookOwed: reply[5] === 1,
      });
    }
    // After the end's bookkeeping: a failure here fails the job, and its retry, loading this turn,
    // adds the pending spend (loadTurn) — it cannot redo the end.
    await this.spend.addTenantSpend(runId, turn, reply[3], pending);
    return { outcome: commit.outcome, committed: true, usage, costMicroUsd: Number(reply[4]) };
  }

  /** Parks the run for its open question unless the answer is there already. */
  async parkForInput(runId: string, turn: number, question: { toolUseId: string; question: string }): Promise<'parked' | 'answered' | 'terminal'> {
    const event = this.events.encode({ run_id: runId, step: turn, event: 'input-wait', question: question.question, tool_use_id: question.toolUseId });
    const code = await this.scripts.bfParkForInput(
      this.keys.run(runId),
      this.keys.results(runId),
      this.keys.events(runId),
      question.toolUseId,
      new Date().toISOString(),
      event.json,
    );
    if (code === 0) {
      this.events.emitted([event]);
      for (const observer of this.events.parkObservers) observer({ runId, turn, toolUseId: question.toolUseId, question: question.question });
      return 'parked';
    }
    return code === 1 ? 'answered' : 'terminal';
  }

  /** Closes the run's open ask_user call with the user's answer (bfAnswerQuestion). */
  async answerQuestion(
    runId: string,
    question: { toolUseId: string; turn: number },
    result: StoredToolResult,
    trail: TrailEntry,
  ): Promise<'resume' | 'recorded' | 'no_open_question' | 'terminal'> {
    // The answer in the event too (redacted, cut), so a run's timeline says what was answered.
    const answer = (result.output as { answer?: unknown } | undefined)?.answer;
    const event = this.events.encode({
      run_id: runId,
      step: question.turn,
      event: 'input-receive',
      tool_use_id: question.toolUseId,
      ...(typeof answer === 'string' ? { answer: redactText(answer).slice(0, MAX_ANSWER_IN_EVENT) } : {}),
    });
    const keys = this.keys;
    const code = await this.scripts.bfAnswerQuestion(
      keys.run(runId),
      keys.results(runId),
      keys.trail(runId),
      keys.events(runId),
      question.toolUseId,
      JSON.stringify(redactValue(result)),
      JSON.stringify(trail),
      new Date().toISOString(),
      event.json,
    );
    if (code === -2) return 'terminal';
    if (code === 0) return 'no_open_question';
    this.events.emitted([event]);
    return code === 1 ? 'resume' : 'recorded';
  }

  /** When this turn first met an overloaded API (epoch ms), remembered across attempts. */
  async noteTurnOverload(runId: string, turn: number, now = Date.now()): Promise<number> {
    return Number(await this.scripts.bfNoteTurnOverload(this.keys.turn(runId, turn), now));
  }

  /** Counts one more retry-after cycle of the turn; returns the count. */
  async countRateLimitCycle(runId: string, turn: number): Promise<number> {
    return this.redis.hincrby(this.keys.turn(runId, turn), 'rateLimitCycles', 1);
  }

  async getMessages(runId: string): Promise<unknown[]> {
    const raw = await this.redis.lrange(this.keys.messages(runId), 0, -1);
    return raw.map((entry) => JSON.parse(entry) as unknown);
  }

  /** The id of the job that claimed the run's turn (its model call), or null when none did. */
  async turnClaimant(runId: string, turn: number): Promise<string | null> {
    return this.redis.hget(this.keys.turn(runId, turn), 'claimedBy');
  }

  /** Confirms a turn's committed answer and outcome on `durability.replicas` replicas, or throws
   * ClaimNotDurableError (before its calls with effects are handed out: run-model-turn.ts). */
  async confirmTurnDurable(runId: string, turn: number, durability: ClaimDurability | undefined): Promise<void> {
    await confirmClaimDurable({
      redis: this.redis,
      durability,
      what: `the answer of turn ${turn}`,
      readBack: { command: 'hexists', key: this.keys.turn(runId, turn), field: 'outcome' },
    });
  }

  /** The run at `turn` as the reaper judges it (bfInspectTurn), one round trip: 'moved' when the
   * run is no longer at that turn, 'missing' when it has no record. Validated like loadTurn. */
  async inspectTurn(runId: string, turn: number): Promise<TurnInspection | 'moved' | 'missing'> {
    const keys = this.keys;
    const reply = await this.scripts.bfInspectTurn(keys.run(runId), keys.turn(runId, turn), keys.turn(runId, turn - 1), keys.results(runId), String(turn));
    if (reply[0] === -1) return 'missing';
    if (reply[0] === 0) return 'moved';
    const [, status, updatedAt, inputCommitted, claimedBy, recoveries, previousRaw, recorded, traceContextRaw] = reply;
    const reading = decodeRunStatus(runId, status);
    if (reading.state !== 'found') throw new StoredRunInvalid(runId, 'status', `not a run status: ${JSON.stringify(status)}`);
    const recoveryCount = Number(recoveries);
    if (!Number.isInteger(recoveryCount) || recoveryCount < 0)
      throw new Error(`The turn ${turn} of run ${runId} holds recoveries that are not a count: ${recoveries}`);
    const dispatch = previousRaw ? parseOutcome(previousRaw).dispatch : [];
    return {
      status: reading.value,
      turn,
      updatedAt,
      inputCommitted: inputCommitted === '1',
      claimedBy: claimedBy || null,
      recoveries: recoveryCount,
      calls: dispatch.map((call, index) => ({ call, recorded: recorded[index] === 1 })),
      traceContext: decodeTraceContext(traceContextRaw),
    };
  }

  /**
   * Hands a turn whose jobs are all lost or dead to `jobId` (bfResumeTurn), with a `run-resume`
   * event, only if the run is still as the reaper saw it. The caller enqueues the job after:
   * 'resumed' means this call, and no other, may.
   */
  async resumeTurn(
    runId: string,
    seen: { turn: number; updatedAt: string; recoveries: number },
    resume: { jobId: string; reason: string; detail: { tool_use_ids?: string[] } },
  ): Promise<'resumed' | 'changed' | 'terminal'> {
    const event = this.events.encode({
      run_id: runId,
      step: seen.turn,
      event: 'run-resume',
      reason: resume.reason,
      job_id: resume.jobId,
      recovery: seen.recoveries + 1,
      ...resume.detail,
    });
    const keys = this.keys;
    const code = await this.scripts.bfResumeTurn(
      keys.run(runId),
      keys.turn(runId, seen.turn),
      keys.events(runId),
      String(seen.turn),
      seen.updatedAt,
      String(seen.recoveries),
      resume.jobId,
      new Date().toISOString(),
      event.json,
    );
    if (code === 1) {
      this.events.emitted([event]);
      this.logger?.warn({ run_id: runId, step: seen.turn, event: 'run-resume', reason: resume.reason, job_id: resume.jobId }, 'run resumed by the reaper');
      return 'resumed';
    }
    return code === 0 ? 'changed' : 'terminal';
  }
}

/** The run's fields a committed answer sets: the next turn, its counters and max_tokens, the time,
 * and the open question when the answer asked one (left as it is otherwise). */
function nextTurnFields(
  turn: number,
  next: { counters: RunCounters; maxTokens: number; question: { toolUseId: string; question: string } | null },
): Record<string, string> {
  return toFields({
    turn: turn + 1,
    counters: next.counters,
    maxTokens: next.maxTokens,
    updatedAt: new Date().toISOString(),
    ...(next.question ? { question: { toolUseId: next.question.toolUseId, question: next.question.question, turn: turn + 1 } } : {}),
  });
}
