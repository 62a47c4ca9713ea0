import { describe, expect, it } from 'vitest';
import { ALL_TOOLS, toolsForPhase, type BuilderPhase as Phase } from '../domain/profile.js';
import { toolInputSchemas } from '../domain/tool-input-schemas.js';
import { decideBuilderTurn } from './builder-policy.js';
import type { NormalizedBlock, NormalizedMessage, ToolChoice } from './messages-request.js';
import type { PlannedTurn } from './planned-turn.js';
import { readTranscriptFacts } from './transcript-facts.js';

interface Step {
  name: string;
  input?: Record<string, unknown>;
  /** The result text; wrapped like the fleet does unless `plain`. */
  output?: unknown;
  error?: string;
}

const DEPLOY_OUTPUT = { deploy_id: 'dep_1', url: 'http://127.0.0.1:1/sites/r/d/dep_1/' };

/** A transcript in which each inner array is one assistant turn of parallel calls, all answered. */
function transcript(turns: Step[][], { trailingAssistant }: { trailingAssistant?: string } = {}): NormalizedMessage[] {
  const messages: NormalizedMessage[] = [{ role: 'user', blocks: [{ kind: 'text', text: 'Build a site for Luna Bakery.' }] }];
  let counter = 0;
  for (const turn of turns) {
    const ids = turn.map(() => `toolu_${(counter += 1)}`);
    messages.push({ role: 'assistant', blocks: turn.map((step, index): NormalizedBlock => ({ kind: 'tool_use', id: ids[index] ?? '', name: step.name, input: step.input ?? {} })) });
    messages.push({
      role: 'user',
      blocks: turn.map((step, index): NormalizedBlock => ({
        kind: 'tool_result',
        toolUseId: ids[index] ?? '',
        isError: step.error !== undefined,
        text: step.error ?? `<tool_output tool="${step.name}" trust="untrusted">\n${JSON.stringify(step.output ?? { ok: true })}\n</tool_output>`,
      })),
    });
  }
  if (trailingAssistant) messages.push({ role: 'assistant', blocks: [{ kind: 'text', text: trailingAssistant }] });
  return messages;
}

const PLAN: Step[] = [{ name: 'todo_write' }];
const STYLE: Step[] = [{ name: 'set_colors' }, { name: 'set_fonts' }];
const FILES: Step[] = ['index.html', 'styles.css', 'about.html', 'logo.svg'].map((path) => ({ name: 'write_file', input: { path, content: 'x' } }));
const DEPLOY: Step[] = [{ name: 'deploy', output: DEPLOY_OUTPUT }];
const BUILD_DONE: Step[] = [{ name: 'todo_complete', input: { id: 'build' } }];
const VERIFY: Step[][] = [[{ name: 'fetch_url_live' }], [{ name: 'check_broken_images' }], [{ name: 'set_meta' }], [{ name: 'publish', output: { deploy_id: 'dep_1', url: 'http://127.0.0.1:1/sites/r/' } }], [{ name: 'todo_complete', input: { id: 'verify' } }]];

function decide(phase: Phase, turns: Step[][], options: { toolChoice?: ToolChoice; trailingAssistant?: string } = {}): PlannedTurn {
  return decideBuilderTurn({
    toolNames: [...toolsForPhase(phase)],
    toolChoice: options.toolChoice ?? { type: 'auto', disableParallelToolUse: false },
    facts: readTranscriptFacts({ messages: transcript(turns, options) }),
  });
}

const names = (turn: PlannedTurn) => (turn.kind === 'tool-calls' ? turn.calls.map((call) => call.name) : []);
const finalText = (turn: PlannedTurn) => (turn.kind === 'final-answer' ? turn.paragraphs.join(' ') : '');

describe('the builder policy', () => {
  it('gives every forced tool an input its schema accepts, before and after a deploy', () => {
    for (const turns of [[], [PLAN, STYLE, FILES, DEPLOY]]) {
      for (const name of ALL_TOOLS) {
        const turn = decideBuilderTurn({
          toolNames: [...ALL_TOOLS],
          toolChoice: { type: 'tool', name, disableParallelToolUse: false },
          facts: readTranscriptFacts({ messages: transcript(turns) }),
        });
        expect(turn.kind === 'tool-calls' && turn.preface).toBe(null);
        const [only] = turn.kind === 'tool-calls' ? turn.calls : [];
        expect(only?.name).toBe(name);
        expect(toolInputSchemas[name].safeParse(only?.input).success, `${name}: ${JSON.stringify(only?.input)}`).toBe(true);
      }
    }
  });

  it('follows the build order within each tier', () => {
    expect(names(decide('planning', []))).toEqual(['todo_write']);
    expect(names(decide('building', [PLAN]))).toEqual(['set_colors', 'set_fonts']);
    expect(names(decide('building', [PLAN, STYLE]))).toEqual(['write_file', 'write_file', 'write_file', 'write_file']);
    expect(names(decide('building', [PLAN, STYLE, FILES]))).toEqual(['deploy']);
    expect(decide('building', [PLAN, STYLE, FILES, DEPLOY])).toMatchObject({ calls: [{ name: 'todo_complete', input: { id: 'build' } }] });
    expect(decide('verifying', [PLAN, STYLE, FILES, DEPLOY, BUILD_DONE])).toMatchObject({ calls: [{ name: 'fetch_url_live', input: { url: DEPLOY_OUTPUT.url } }] });
    expect(decide('verifying', [PLAN, STYLE, FILES, DEPLOY, BUILD_DONE, ...VERIFY.slice(0, 3)])).toMatchObject({ calls: [{ name: 'publish', input: { deploy_id: 'dep_1' } }] });
    expect(names(decide('verifying', [PLAN, STYLE, FILES, DEPLOY, BUILD_DONE, ...VERIFY]))).toEqual(['finish_turn']);
  });

  it('answers the summary in text once finish_turn passed, under tool_choice auto with the tier still offered', () => {
    const finished = [PLAN, STYLE, FILES, DEPLOY, BUILD_DONE, ...VERIFY, [{ name: 'finish_turn' }]];
    for (const toolNames of [[...toolsForPhase('verifying')], [...ALL_TOOLS]]) {
      const final = decideBuilderTurn({ toolNames, toolChoice: { type: 'auto', disableParallelToolUse: false }, facts: readTranscriptFacts({ messages: transcript(finished) }) });
      expect(final.kind).toBe('final-answer');
      expect(finalText(final)).toContain('http://127.0.0.1:1/sites/r/');
    }
    // A call the fleet refused after the gate changes nothing: the answer is still the summary.
    const refusedLate: Step[] = [{ name: 'read_session', error: 'Error (finish_already_verified): finish_turn already passed.' }];
    expect(decide('verifying', [...finished, refusedLate]).kind).toBe('final-answer');
  });

  it('writes only the files still missing, and redeploys after a later write', () => {
    expect(decide('building', [PLAN, STYLE, FILES.slice(0, 2)])).toMatchObject({ calls: [{ input: { path: 'about.html' } }, { input: { path: 'logo.svg' } }] });
    expect(names(decide('building', [PLAN, STYLE, FILES, DEPLOY, [FILES[0] as Step]]))).toEqual(['deploy']);
  });

  it('retries a failed step once, then gives up with the error when the step is essential', () => {
    const failedDeploy: Step[] = [{ name: 'deploy', error: 'Error (deploy_failed): disk full' }];
    expect(names(decide('building', [PLAN, STYLE, FILES, failedDeploy]))).toEqual(['deploy']);
    const gaveUp = decide('building', [PLAN, STYLE, FILES, failedDeploy, failedDeploy]);
    expect(gaveUp.kind).toBe('final-answer');
    expect(finalText(gaveUp)).toContain('disk full');
  });

  it('skips an optional step that failed twice', () => {
    const failedFetch: Step[] = [{ name: 'fetch_url_live', error: 'Error (fetch_blocked): not allowed' }];
    expect(names(decide('verifying', [PLAN, STYLE, FILES, DEPLOY, BUILD_DONE, failedFetch, failedFetch]))).toEqual(['check_broken_images']);
  });

  it('does what a finish_turn refusal says is missing, when the tools allow it', () => {
    const refused = (message: string): Step[] => [{ name: 'finish_turn', error: `Error (finish_gate_failed): The site is not finished yet:\n${message}` }];
    const beforePublish = [PLAN, STYLE, FILES, DEPLOY, BUILD_DONE, ...VERIFY.slice(0, 3), [{ name: 'todo_complete', input: { id: 'verify' } }]];
    const remedy = decide('verifying', [...beforePublish, refused('- Publish the latest deployment with publish (pass the deploy_id that deploy returned).')]);
    expect(remedy).toMatchObject({ calls: [{ name: 'publish', input: { deploy_id: 'dep_1' } }] });
    // An unverified todo is never marked done just because finish_turn asked for it.
    const all = [PLAN, STYLE, FILES, DEPLOY, BUILD_DONE, ...VERIFY.slice(0, 3)];
    const todoOnly = decide('verifying', [...all, refused('- Finish todo "verify" (Verify the live page and publish), then mark it with todo_complete.')]);
    expect(names(todoOnly)).toEqual(['publish']);
    const nothingToDo = decide('planning', [PLAN, refused('- Deploy the site with deploy.')]);
    expect(nothingToDo.kind).toBe('final-answer');
    expect(finalText(nothingToDo)).toContain('Deploy the site with deploy.');
  });

  it('answers in text only under tool_choice none, and calls a tool under any', () => {
    const none = decide('building', [PLAN], { toolChoice: { type: 'none', disableParallelToolUse: false } });
    expect(none.kind).toBe('final-answer');
    const done = [PLAN, STYLE, FILES, DEPLOY, BUILD_DONE, ...VERIFY, [{ name: 'finish_turn' }]];
    expect(names(decide('planning', done, { toolChoice: { type: 'any', disableParallelToolUse: false } }))).toEqual(['finish_turn']);
  });

  it('makes one call at a time when parallel tool use is disabled', () => {
    expect(names(decide('building', [PLAN], { toolChoice: { type: 'auto', disableParallelToolUse: true } }))).toEqual(['set_colors']);
  });

  it('continues a trailing assistant message without repeating its preface', () => {
    const turn = decide('building', [PLAN, STYLE], { trailingAssistant: 'Let me sketch the page structure.' });
    expect(turn).toMatchObject({ kind: 'tool-calls', preface: null });
  });

  it('stops with a text answer once the transcript passes 60 messages', () => {
    const failing: Step[] = [{ name: 'read_session' }];
    const turn = decide('building', Array.from({ length: 31 }, () => failing));
    expect(turn.kind).toBe('final-answer');
    expect(finalText(turn)).toContain('too long');
  });
});
