// The builder's progress, derived from the transcript's tool calls: which steps succeeded, how
// often each failed, and the facts later steps need (deploy id, URLs).
import { readDeployment, readPublishedUrl } from './read-tool-output.js';
import { SITE_PALETTE, siteTitleFromBrief, type SitePalette } from './site-plan.js';
import { paletteFromWords } from './palette-from-words.js';
import type { ToolCallRecord, TranscriptFacts } from './transcript-facts.js';

export interface Deployment {
  position: number;
  deployId: string | undefined;
  url: string | undefined;
}

export interface BuilderProgress {
  calls: readonly ToolCallRecord[];
  siteTitle: string;
  /** The site's colours: the user's, where an answer named some (palette-from-words.ts). */
  palette: SitePalette;
  planWritten: boolean;
  writtenFiles: ReadonlySet<string>;
  /** Position of the latest successful write_file, or -1. */
  lastWritePosition: number;
  latestDeployment: Deployment | undefined;
  publishedUrl: string | undefined;
  completedTodos: ReadonlySet<string>;
  finishTurnDone: boolean;
}

type CallFilter = (call: ToolCallRecord) => boolean;

/** Successful calls of `name` after position `after` (exclusive). */
export function successesOf(progress: BuilderProgress, name: string, after = -1, filter: CallFilter = () => true): ToolCallRecord[] {
  return progress.calls.filter((call) => call.name === name && call.position > after && call.outcome === 'success' && filter(call));
}

/** Failed calls of `name` after position `after` (exclusive). */
export function failuresOf(progress: BuilderProgress, name: string, after = -1, filter: CallFilter = () => true): ToolCallRecord[] {
  return progress.calls.filter((call) => call.name === name && call.position > after && call.outcome === 'error' && filter(call));
}

function last<Item>(items: readonly Item[]): Item | undefined {
  return items[items.length - 1];
}

/** Reads the builder's progress from the transcript facts. */
export function readBuilderProgress({ facts }: { facts: TranscriptFacts }): BuilderProgress {
  const succeeded = (name: string) => facts.calls.filter((call) => call.name === name && call.outcome === 'success');
  const writes = succeeded('write_file');
  const deploy = last(succeeded('deploy'));
  const publish = last(succeeded('publish'));
  const deployment = deploy?.output ? { position: deploy.position, ...readDeployment({ output: deploy.output }) } : undefined;
  return {
    calls: facts.calls,
    siteTitle: siteTitleFromBrief({ brief: facts.brief }),
    palette:
      paletteFromWords(
        succeeded('ask_user')
          .map((call) => call.output?.text ?? '')
          .join('\n'),
      ) ?? SITE_PALETTE,
    planWritten: succeeded('todo_write').length > 0,
    writtenFiles: new Set(writes.flatMap((call) => (typeof call.input.path === 'string' ? [call.input.path] : []))),
    lastWritePosition: last(writes)?.position ?? -1,
    latestDeployment: deployment,
    publishedUrl: publish?.output ? readPublishedUrl({ output: publish.output }) : undefined,
    completedTodos: new Set(succeeded('todo_complete').flatMap((call) => (typeof call.input.id === 'string' ? [call.input.id] : []))),
    finishTurnDone: succeeded('finish_turn').length > 0,
  };
}
