// `buildfleet agent check <module> [--script FILE]` (docs/agents.md#checking-an-agent): what an
// agent's author runs before deploying it. It loads the module as every role would (its MCP
// servers listed through the SSRF guard and BUILDFLEET_FETCH_ALLOWLIST), and reports:
//   - each phase's tier and its size against the limit;
//   - whether each phase's request is one the Messages API takes, with strict tool use and
//     without: the request the fleet would send, through the simulator's own parser, which polices
//     the API's documented rules (src/sim/parse-messages-request.ts, parse-strict-tools.ts);
//   - with --script, a dry run of a scripted conversation (src/sim/conversation-script.ts) against
//     the agent: every call in its phase's tier and its input valid, the phases moving as the
//     transitions say, and its last finish_turn passing the gate. Tools are not run: every call
//     counts as a success, and a transition that reads a call's output is judged without one.
// Exit 0 when everything holds, 1 when something does not (each fault printed), 2 for usage.
import { parseArgs } from 'node:util';
import { loadConfig, sitesBaseUrlOf } from '../config.js';
import { loadAgentModules, type Agent } from '../agents/index.js';
import { formatZodIssues } from '../domain/format-zod-issues.js';
import { fetchPolicyFor } from '../tools/http/check-fetch-target.js';
import { listMcpServer } from '../tools/mcp-tool/list-mcp-server.js';
import { anthropicToolsOf, MAXIMUM_STRICT_TOOLS } from '../tools/tool-definitions.js';
import { parseMessagesRequest } from '../sim/parse-messages-request.js';
import { SIMULATOR_DEFAULT_MODEL } from '../sim/model-catalog.js';
import { readConversationScript, type ConversationScript } from '../sim/conversation-script.js';
import { UsageError } from './usage-error.js';

/** The request the fleet would send in a phase, as the API would judge it: null when taken. */
function requestRefusal(agent: Agent, phase: string, strict: boolean): string | null {
  const sources = agent
    .tier(phase)
    .map((name) => agent.tools.get(name))
    .filter((tool) => tool !== undefined);
  let tools: unknown;
  try {
    // What build-turn-request.ts would send; it refuses to build a request the API would refuse.
    tools = anthropicToolsOf(sources, { strict, cacheKey: `check:${agent.fingerprint}` });
  } catch (error) {
    return `the fleet cannot build it: ${error instanceof Error ? error.message : String(error)}`;
  }
  const body = {
    model: SIMULATOR_DEFAULT_MODEL,
    max_tokens: 1024,
    system: agent.systemPrompt({ phase }),
    messages: [{ role: 'user', content: 'check' }],
    tools,
  };
  const parsed = parseMessagesRequest({ body });
  return parsed.ok ? null : `${parsed.status} ${parsed.message}`;
}

function holdsReference(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsReference);
  if (value === null || typeof value !== 'object') return false;
  return '$result' in value || Object.values(value).some(holdsReference);
}

/** The script's path through the agent, without running a tool: the faults it would meet. */
export function dryRunScript(agent: Agent, script: ConversationScript): { faults: string[]; finished: boolean } {
  const faults: string[] = [];
  let phase = agent.initialPhase;
  let finished = false;
  const trail: Array<{ tool: string; ok: boolean; phase: string }> = [];
  let todos: Array<{ id: string; title: string; phase?: string; done: boolean }> = [];
  script.turns.forEach((turn, index) => {
    const at = `turn ${index + 1} (${phase})`;
    const tier = agent.tier(phase);
    if (turn.expect_tools && [...turn.expect_tools].sort().join() !== [...tier].sort().join()) {
      faults.push(`${at}: the script expects the tools ${turn.expect_tools.join(', ')}; the phase offers ${tier.join(', ')}`);
    }
    let next = phase;
    for (const block of turn.content) {
      if (block.type !== 'tool_use') continue;
      const tool = agent.tools.get(block.name);
      if (!tier.includes(block.name) || !tool) {
        faults.push(`${at}: it calls ${block.name}, which the phase does not offer`);
        continue;
      }
      if (!holdsReference(block.input)) {
        const parsed = tool.input.safeParse(block.input);
        if (!parsed.success) faults.push(`${at}: ${block.name}'s input is invalid: ${formatZodIssues({ issues: parsed.error.issues, whole: '(input)' })}`);
      }
      if (block.name === 'todo_write') todos = ((block.input.todos as typeof todos | undefined) ?? []).map((todo) => ({ ...todo, done: false }));
      if (block.name === 'todo_complete') todos = todos.map((todo) => (todo.id === block.input.id ? { ...todo, done: true } : todo));
      trail.push({ tool: block.name, ok: true, phase });
      if (block.name === 'finish_turn') {
        const missing = agent.finishGate({ trail, todos, deployments: { latest: null, live: null } });
        finished = missing.length === 0;
        if (!finished) trail[trail.length - 1] = { tool: 'finish_turn', ok: false, phase };
      }
      next = agent.transitionAfter({ phase, tool: block.name, output: {}, todos }) ?? next;
    }
    phase = next;
  });
  if (!finished) faults.push('the script never passes the finish gate: its last finish_turn (if any) would be refused');
  return { faults, finished };
}

export async function runAgentCheckCommand({ argv, environment = process.env }: { argv: string[]; environment?: NodeJS.ProcessEnv }): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { script: { type: 'string' } } });
  if (positionals[0] !== 'check' || positionals.length !== 2) throw new UsageError('usage: buildfleet agent check <module> [--script FILE]');
  const config = loadConfig(environment);
  const fetchPolicy = fetchPolicyFor({ publicBaseUrl: sitesBaseUrlOf(config), config });
  let agents: Agent[];
  try {
    agents = await loadAgentModules(positionals[1] as string, (spec) => listMcpServer(spec, { fetchPolicy }));
  } catch (error) {
    console.error(`buildfleet agent check: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  const faults: string[] = [];
  for (const agent of agents) {
    console.log(`agent ${agent.name} (fingerprint ${agent.fingerprint}): ${agent.phases.length} phase(s), ${agent.tools.size} tool(s)`);
    for (const phase of agent.phases) {
      const tier = agent.tier(phase);
      console.log(`  ${phase}: ${tier.length} tool(s): ${tier.join(', ')}`);
      // Strict tool use as the fleet sends it: only where the request carries at most 20 tools.
      for (const strict of tier.length <= MAXIMUM_STRICT_TOOLS ? [false, true] : [false]) {
        const refusal = requestRefusal(agent, phase, strict);
        if (refusal) faults.push(`${agent.name} ${phase}: the Messages API would refuse its request${strict ? ' with strict tool use' : ''}: ${refusal}`);
      }
    }
    const script = values.script ? readConversationScript(values.script) : null;
    if (script) {
      const dryRun = dryRunScript(agent, script);
      console.log(`  script ${values.script}: ${script.turns.length} turn(s), ${dryRun.finished ? 'passes the finish gate' : 'does not pass the finish gate'}`);
      faults.push(...dryRun.faults.map((fault) => `${agent.name} script ${fault}`));
    }
  }
  for (const fault of faults) console.log(`FAIL ${fault}`);
  console.log(faults.length === 0 ? 'agent check passed' : `agent check failed: ${faults.length} fault(s)`);
  return faults.length === 0 ? 0 : 1;
}
