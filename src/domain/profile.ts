// The builder agent's profile: its phases, the tool tier each phase exposes, and its plan rules.
// Pure data and pure functions: the tier for a turn depends on the phase alone.
import { assertNever } from './assert-never.js';
import { SITE_BUILDER_TOOLS, type SiteBuilderToolName } from './site-builder-tools.js';

/** The builder's name as an agent (src/agents/site-builder/agent.ts): the agent of a run that names none,
 * and of every run created before runs named their agent. */
export const SITE_BUILDER_AGENT = 'site-builder';

/** The builder's phases. A run stays in the phase it passed the finish gate in; `finishVerified`
 * marks its summary turn. */
export const PHASES = ['planning', 'building', 'verifying'] as const;
export type BuilderPhase = (typeof PHASES)[number];
/** A phase of any agent (src/agents/define-agent.ts): its name. */
export type Phase = string;
/** What an agent's name may be (POST /v1/runs `agent`). */
export const AGENT_NAME = /^[a-z][a-z0-9-]{1,39}$/;

/** What a phase name may be: what an agent's definition may declare and a run record may hold. */
export const PHASE_NAME = /^[a-z][a-z0-9_-]{0,39}$/;

export const CORE_TOOLS = ['todo_write', 'todo_complete', 'ask_user', 'read_session', 'finish_turn'] as const;

type BuilderToolsOf<Phase> = { [Name in SiteBuilderToolName]: (typeof SITE_BUILDER_TOOLS)[Name]['phase'] extends Phase ? Name : never }[SiteBuilderToolName];
export type CoreToolName = (typeof CORE_TOOLS)[number];
export type BuildToolName = BuilderToolsOf<'building'>;
export type OpsToolName = BuilderToolsOf<'verifying'>;

function builderToolsOf<Name extends SiteBuilderToolName>(phase: SiteBuilderToolEntryPhase): readonly Name[] {
  return (Object.keys(SITE_BUILDER_TOOLS) as SiteBuilderToolName[]).filter((name) => SITE_BUILDER_TOOLS[name].phase === phase) as Name[];
}
type SiteBuilderToolEntryPhase = (typeof SITE_BUILDER_TOOLS)[SiteBuilderToolName]['phase'];

/** The builder's tools of the building and the verifying tiers, in the catalog's order (site-builder-tools.ts). */
export const BUILD_TOOLS: readonly BuildToolName[] = builderToolsOf<BuildToolName>('building');
export const OPS_TOOLS: readonly OpsToolName[] = builderToolsOf<OpsToolName>('verifying');
export type ToolName = CoreToolName | BuildToolName | OpsToolName;
export const ALL_TOOLS: readonly ToolName[] = [...CORE_TOOLS, ...BUILD_TOOLS, ...OPS_TOOLS];

/** The largest tier any phase exposes; a test asserts no model request carries more. */
export const MAX_TOOLS_PER_REQUEST = 13;

export type TierName = 'core' | 'build' | 'ops';

/** The tool names the model may see (and call) in a phase. */
export function toolsForPhase(phase: BuilderPhase): readonly ToolName[] {
  switch (phase) {
    case 'planning':
      return CORE_TOOLS;
    case 'building':
      return [...CORE_TOOLS, ...BUILD_TOOLS];
    case 'verifying':
      return [...CORE_TOOLS, ...OPS_TOOLS];
    default:
      return assertNever(phase);
  }
}

/** Write tools change a run's workspace, deployments or published state; the kill switch and
 * skip_writes safe mode refuse them. */
export const WRITE_TOOLS: ReadonlySet<ToolName> = new Set<ToolName>(
  (Object.keys(SITE_BUILDER_TOOLS) as SiteBuilderToolName[]).filter((name) => SITE_BUILDER_TOOLS[name].effect === 'write'),
);

export function isToolName(name: string): name is ToolName {
  return (ALL_TOOLS as readonly string[]).includes(name);
}
