// Dispatches `buildfleet <command>`; returns the exit code.
import { parseArgs } from 'node:util';
import { ApiClient, ApiClientError, ApiResponseInvalidError, ApiUnreachableError, resolveApiKey, resolveApiUrl } from './api-client.js';
import { terminalIo, type CliIo } from './cli-io.js';
import { describeApiError, EXIT_CODES, exitCodeOfApiError } from './exit-codes.js';
import { UsageError } from './usage-error.js';
import { CLI, cliName } from './cli-name.js';
import { SCENARIO_NAMES } from '../domain/scenario-names.js';
import type { TailOutcome } from './tail-run.js';

export { UsageError, cliName };

export const USAGE = `Usage: buildfleet <command> [options]

Commands:
  dev [--profile instant|fast|realistic]   run the whole fleet locally (private redis, simulator,
                              API, workers); --profile paces the simulator (default instant: a
                              build in about a second; fast: a real model's pacing at 10x, to watch one)
  demo [--once]               dev + submit a sample build, follow it, print the site URL
  submit "<prompt>" | --input JSON [--agent NAME] [--follow [--answer TEXT] [--full]] [--scenario NAME] [--model M] [--max-turns N]
         [--thinking on|off] [--thinking-budget N] [--effort low|medium|high|xhigh|max]
  list [--status S] [--from T] [--to T] [--prompt TEXT] [--tenant T] [--limit N] [--cursor C] [--all] [--json]
                              the tenant's runs, newest first: id, status, phase/turn, cost, created, prompt
  status <runId> [--json]     a run's state as a readable summary (--json: the raw record)
  logs <runId> [--full]       a run's timeline: turns with the model's text, tool calls with verdicts,
                              phase changes, retries, the end
  tail <runId> [--answer TEXT] [--full]   the timeline live until the run ends; answers its question
                              (--answer, else a prompt when stdin is a TTY, else stops: exit 3)
  resume <runId> [--follow [--answer TEXT]]   continue a run that failed for a transient reason
  rerun <runId> [--prompt P] [--model M] [--follow [--answer TEXT]]   the run's input again, as a new run
  scenarios [--only a,b]      run every stop-reason scenario against the fleet; table + exit code
  experiment tiers [--runs N] flat vs tiered tools, recovery off vs on (prints a table)
  experiment providers [--runs N] [--formats a,b] [--concurrency N]
                              the tiers measure per provider profile (anthropic, openai_compatible
                              native, each open-model text format): tool_use, recovery, verified
  experiment crash [--runs N] [--cluster [--shards N]] [--agent order-desk]
                              SIGKILL workers and restart Redis (or fail over cluster primaries)
                              during builds (or the example agent's runs); audit effects
  experiment killswitch       one tenant's spike stays its own; a fleet-wide spike stops every write
  experiment production [--runs N] realistic model timing, long pages, thinking, overload and
                              rate-limit episodes; calls abandoned, paid twice, tokens by class
  experiment admission [--runs N] [--itpm N] builds at once against an input-tokens-per-minute
                              limit, admission limiter off then on: 429s, builds finished, wall time
  experiment cost [--builds N] [--model M] [--profile realistic|fast] [--json]
                              the same builds with prompt caching off then on: tokens by class,
                              cache hit ratio, USD per build, input cost cached / uncached vs 35%
  experiment soak [--runs N] [--in-flight N] [--retention-s N] [--json]
                              builds with keys kept, then archived with retention under a Redis
                              maxmemory the first half outgrew: memory flat, no run lost from history
  experiment image [--builds N] [--grace-s N] [--suite S] [--mirror URL] [--clean]
                              (root, podman) build the Dockerfile's image, run every role from it:
                              size, build time, health, uid, a build to its site, scale, SIGTERM drain
  input <runId> "<text>"      answer a run's open question
  cancel <runId>              cancel a run
  keys create --tenant T --scopes runs:read,runs:write[,admin] [--name N]
  keys list [--tenant T] / keys revoke <keyId>   API keys (talks to REDIS_URL directly)
  keys bootstrap [--tenant T]  a deployment's first admin key: created once, printed once (docs/deploy.md)
  keys policy get|set|reset <tenant> [field=value …]   a tenant's limits (docs/tenants.md)
  agent check <module> [--script FILE]   load an agent module as every role would; check its tiers,
                              its requests (strict tool use too) and a scripted path through its gate
  migrate [--if-configured]   apply the history schema's migrations to DATABASE_URL (docs/history.md);
                              --if-configured: exit 0 when DATABASE_URL is unset
  api                         run the API process
  worker model|tool           run a worker process
  sim [--port N] [--latency-ms MIN-MAX] [--profile instant|realistic|fast]   run the model simulator
  parse --tools FILE [--no-intent]        parse model text on stdin for tool calls

Simulator scenarios (--scenario NAME): ${SCENARIO_NAMES.join(', ')}.

Commands that talk to a running fleet take --api URL (default BUILDFLEET_API_URL, else the
local dev fleet) and --key KEY (default BUILDFLEET_API_KEY, else the dev key). Exit codes: 0 ok,
1 the followed run did not succeed, 2 usage or request refused as invalid, 3 the run waits for an
answer, 4 not found, 5 unauthorized, 6 the run's state refuses it, 7 a limit, 8 fleet unavailable.`;

/** `--input JSON`: the agent's input, an object (the API checks it against the agent's schema). */
function parseInputOption(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError('--input must be JSON: --input \'{"customer": "Ada", "items": [...]}\'');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError('--input must be a JSON object');
  return value as Record<string, unknown>;
}

function clientFrom(values: { api?: string | undefined; key?: string | undefined }): ApiClient {
  return new ApiClient(resolveApiUrl(values.api), resolveApiKey(values.key));
}

const connectionOptions = { api: { type: 'string' }, key: { type: 'string' } } as const;
const followOptions = { follow: { type: 'boolean', default: false }, answer: { type: 'string' }, full: { type: 'boolean', default: false } } as const;

/** A followed run's exit code: 0 succeeded, 3 waits for an answer, 1 ended otherwise. */
function exitCodeOfTail(outcome: TailOutcome): number {
  if (outcome.kind === 'waiting') return EXIT_CODES.waitingForInput;
  return outcome.view.status === 'succeeded' ? EXIT_CODES.ok : EXIT_CODES.runNotSucceeded;
}

/** Follows a run the command just started or reopened, when --follow asks for it. */
async function followIfAsked({
  client,
  runId,
  values,
  io,
}: {
  client: ApiClient;
  runId: string;
  values: { follow?: boolean; answer?: string | undefined; full?: boolean };
  io: CliIo;
}): Promise<number> {
  if (!values.follow) {
    if (values.answer !== undefined) throw new UsageError('--answer needs --follow');
    return EXIT_CODES.ok;
  }
  const { tailRun } = await import('./tail-run.js');
  return exitCodeOfTail(await tailRun({ client, runId, io, answer: values.answer, full: values.full ?? false }));
}

/** The one run id a command takes. */
/** The `thinking` of a submit body from `--thinking on|off`, `--thinking-budget N` and `--effort L`
 * (the API checks them against the model: docs/models.md). */
function thinkingBody({ thinking, budget, effort }: { thinking?: string | undefined; budget?: string | undefined; effort?: string | undefined }): {
  thinking?: Record<string, unknown>;
} {
  if (thinking !== undefined && thinking !== 'on' && thinking !== 'off') throw new UsageError(`--thinking is on or off, not ${JSON.stringify(thinking)}`);
  const body = {
    ...(thinking ? { enabled: thinking === 'on' } : {}),
    ...(budget !== undefined ? { budgetTokens: Number(budget) } : {}),
    ...(effort !== undefined ? { effort } : {}),
  };
  return Object.keys(body).length > 0 ? { thinking: body } : {};
}

function runIdOf(command: string, positionals: string[]): string {
  const runId = positionals[0];
  if (!runId) throw new UsageError(`${command} needs a run id: ${CLI} ${command} <runId>`);
  return runId;
}

/** What `cancel` and `input` answer, in a line: the run and the state it is in now. */
function describeCommandResult(command: 'cancel' | 'input', runId: string, result: unknown): string {
  const status = typeof (result as { status?: unknown })?.status === 'string' ? (result as { status: string }).status : null;
  const done = command === 'cancel' ? 'cancelled' : 'answer sent';
  return `${runId}: ${done}${status ? ` (status ${status})` : ''}`;
}

/** USAGE's lines for one command (its first line and the lines continuing it), or null. */
export function commandUsage(command: string): string | null {
  const lines = USAGE.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`  ${command} `) || line === `  ${command}`);
  if (start === -1) return null;
  const block = [lines[start] as string];
  for (const line of lines.slice(start + 1)) {
    if (!/^ {4,}\S/.test(line) || /^ {2}\S/.test(line)) break;
    block.push(line);
  }
  // `experiment` and `keys` have a line per subcommand.
  for (const line of lines.slice(start + block.length)) if (line.startsWith(`  ${command} `)) block.push(line);
  return block.join('\n');
}

/** The last line of a usage error: the command's own usage, and where the whole help is. */
function helpHint(command: string | undefined): string {
  const own = command ? commandUsage(command) : null;
  return `${own ? `\n${own}\n` : ''}\nRun \`${cliName()} help\` for every command.`;
}

export async function runCli(argv: string[], io: CliIo = terminalIo): Promise<number> {
  const [command, ...rest] = argv;
  // `<command> --help`: that command's usage, not an unknown option.
  if (command && (rest.includes('--help') || rest.includes('-h'))) {
    const own = commandUsage(command);
    if (own) {
      io.print(`${own}\n\nRun \`${cliName()} help\` for every command.`);
      return EXIT_CODES.ok;
    }
  }
  try {
    switch (command) {
      case 'dev': {
        const { runDevCommand } = await import('./dev-command.js');
        return await runDevCommand(rest);
      }
      case 'demo': {
        const { runDemoCommand } = await import('./demo-command.js');
        return await runDemoCommand(rest);
      }
      case 'submit': {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: {
            ...connectionOptions,
            ...followOptions,
            scenario: { type: 'string' },
            model: { type: 'string' },
            'max-turns': { type: 'string' },
            thinking: { type: 'string' },
            'thinking-budget': { type: 'string' },
            effort: { type: 'string' },
            agent: { type: 'string' },
            input: { type: 'string' },
          },
        });
        const prompt = positionals.join(' ').trim();
        if (!prompt && values.input === undefined) throw new UsageError(`submit needs a prompt: ${CLI} submit "a bakery landing page" (or --input JSON)`);
        if (prompt && values.input !== undefined) throw new UsageError('submit takes a prompt or --input JSON, not both');
        const client = clientFrom(values);
        const created = await client.request<{ id: string; status: string }>('POST', '/v1/runs', {
          ...(values.input !== undefined ? { input: parseInputOption(values.input) } : { prompt }),
          ...(values.agent ? { agent: values.agent } : {}),
          ...(values.model ? { model: values.model } : {}),
          ...(values['max-turns'] ? { maxTurns: Number(values['max-turns']) } : {}),
          ...(values.scenario ? { options: { scenario: values.scenario } } : {}),
          ...thinkingBody({ thinking: values.thinking, budget: values['thinking-budget'], effort: values.effort }),
        });
        io.print(created.id);
        return await followIfAsked({ client, runId: created.id, values, io });
      }
      case 'list': {
        const { LIST_OPTIONS, runListCommand } = await import('./list-command.js');
        const { values } = parseArgs({ args: rest, options: { ...connectionOptions, ...LIST_OPTIONS } });
        return await runListCommand({ client: clientFrom(values), options: values, io });
      }
      case 'status': {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: { ...connectionOptions, json: { type: 'boolean', default: false } },
        });
        const runId = runIdOf(command, positionals);
        const { readRunView, describeRunView } = await import('./run-summary.js');
        const view = await readRunView({ client: clientFrom(values), runId });
        for (const line of values.json ? [JSON.stringify(view, null, 2)] : describeRunView(view)) io.print(line);
        return EXIT_CODES.ok;
      }
      case 'logs': {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: { ...connectionOptions, full: { type: 'boolean', default: false } },
        });
        const { printRunLogs } = await import('./logs-command.js');
        await printRunLogs({ client: clientFrom(values), runId: runIdOf(command, positionals), io, full: values.full });
        return EXIT_CODES.ok;
      }
      case 'tail': {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: { ...connectionOptions, answer: { type: 'string' }, full: { type: 'boolean', default: false } },
        });
        const { tailRun } = await import('./tail-run.js');
        return exitCodeOfTail(
          await tailRun({ client: clientFrom(values), runId: runIdOf(command, positionals), io, answer: values.answer, full: values.full }),
        );
      }
      case 'resume': {
        const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { ...connectionOptions, ...followOptions } });
        const runId = runIdOf(command, positionals);
        const client = clientFrom(values);
        const resumed = await client.request<{ id: string; status: string }>('POST', `/v1/runs/${runId}/resume`);
        io.print(`${resumed.id} ${resumed.status}`);
        return await followIfAsked({ client, runId: resumed.id, values, io });
      }
      case 'rerun': {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: { ...connectionOptions, ...followOptions, prompt: { type: 'string' }, model: { type: 'string' } },
        });
        const runId = runIdOf(command, positionals);
        const client = clientFrom(values);
        const created = await client.request<{ id: string; status: string }>('POST', `/v1/runs/${runId}/rerun`, {
          ...(values.prompt !== undefined ? { prompt: values.prompt } : {}),
          ...(values.model !== undefined ? { model: values.model } : {}),
        });
        io.print(created.id);
        return await followIfAsked({ client, runId: created.id, values, io });
      }
      case 'cancel':
      case 'input': {
        const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: connectionOptions });
        const runId = runIdOf(command, positionals);
        const client = clientFrom(values);
        if (command === 'input' && !positionals.slice(1).join(' ').trim()) throw new UsageError(`input needs the answer: ${CLI} input <runId> "<text>"`);
        const result =
          command === 'cancel'
            ? await client.request('POST', `/v1/runs/${runId}/cancel`)
            : await client.request('POST', `/v1/runs/${runId}/input`, { text: positionals.slice(1).join(' ') });
        io.print(describeCommandResult(command, runId, result));
        return EXIT_CODES.ok;
      }
      case 'scenarios': {
        const { values } = parseArgs({ args: rest, options: { ...connectionOptions, only: { type: 'string' } } });
        const { runScenarioMatrix, formatScenarioTable } = await import('./run-scenarios.js');
        const rows = await runScenarioMatrix(clientFrom(values), values.only ? { only: values.only.split(',') } : {});
        io.print(formatScenarioTable(rows));
        for (const row of rows.filter((candidate) => !candidate.passed)) io.print(`  ${row.scenario} (${row.runId}): ${row.detail}`);
        return rows.every((row) => row.passed) ? 0 : 1;
      }
      case 'experiment': {
        const [name, ...experimentArguments] = rest;
        if (name === 'tiers') {
          const { runTiersExperimentCommand } = await import('./experiment-tiers.js');
          return await runTiersExperimentCommand(experimentArguments);
        }
        if (name === 'providers') {
          const { runProvidersExperimentCommand } = await import('./experiment-providers.js');
          return await runProvidersExperimentCommand(experimentArguments);
        }
        if (name === 'crash') {
          const { runCrashExperimentCommand } = await import('./experiment-crash.js');
          return await runCrashExperimentCommand(experimentArguments);
        }
        if (name === 'killswitch') {
          const { runKillSwitchExperimentCommand } = await import('./experiment-killswitch.js');
          return await runKillSwitchExperimentCommand(experimentArguments);
        }
        if (name === 'production') {
          const { runProductionExperimentCommand } = await import('./experiment-production.js');
          return await runProductionExperimentCommand(experimentArguments);
        }
        if (name === 'admission') {
          const { runAdmissionExperimentCommand } = await import('./experiment-admission.js');
          return await runAdmissionExperimentCommand(experimentArguments);
        }
        if (name === 'cost') {
          const { runCostExperimentCommand } = await import('./experiment-cost.js');
          return await runCostExperimentCommand(experimentArguments);
        }
        if (name === 'soak') {
          const { runSoakExperimentCommand } = await import('./experiment-soak.js');
          return await runSoakExperimentCommand(experimentArguments);
        }
        if (name === 'image') {
          const { runImageExperimentCommand } = await import('./experiment-image.js');
          return await runImageExperimentCommand(experimentArguments);
        }
        throw new UsageError('experiment needs a name: tiers | providers | crash | killswitch | production | admission | cost | soak | image');
      }
      case 'keys': {
        const { runKeysCommand } = await import('./keys-command.js');
        return await runKeysCommand({ argv: rest });
      }
      case 'agent': {
        const { runAgentCheckCommand } = await import('./agent-check-command.js');
        return await runAgentCheckCommand({ argv: rest });
      }
      case 'migrate': {
        const { runMigrateCommand } = await import('./migrate-command.js');
        return await runMigrateCommand({ argv: rest });
      }
      case 'api': {
        const { runApiCommand } = await import('./api-command.js');
        return await runApiCommand();
      }
      case 'worker': {
        const role = rest[0];
        if (role !== 'model' && role !== 'tool') throw new UsageError(`worker needs a role: ${CLI} worker model|tool`);
        const { runWorkerProcess } = await import('../fleet/start-roles.js');
        await runWorkerProcess(role);
        return await new Promise<number>(() => undefined);
      }
      case 'sim': {
        const { runSimCommand } = await import('./sim-command.js');
        return await runSimCommand(rest);
      }
      case 'parse': {
        const { runParseCommand } = await import('../parsing/parse-command.js');
        return await runParseCommand(rest, process.stdin, process.stdout);
      }
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.print(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.printError(`buildfleet: ${error.message}\n${helpHint(command)}`);
      return EXIT_CODES.usage;
    }
    if (error instanceof ApiClientError) {
      io.printError(`buildfleet: ${describeApiError(error)}`);
      return exitCodeOfApiError(error);
    }
    if (error instanceof ApiUnreachableError || error instanceof ApiResponseInvalidError) {
      io.printError(`buildfleet: ${error.message}`);
      return EXIT_CODES.unavailable;
    }
    // parseArgs refuses unknown options and missing values with a TypeError carrying this code.
    if (
      (error as { code?: unknown }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ||
      (error as { code?: unknown }).code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' ||
      (error as { code?: unknown }).code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL'
    ) {
      io.printError(`buildfleet: ${(error as Error).message}\n${helpHint(command)}`);
      return EXIT_CODES.usage;
    }
    io.printError(`buildfleet: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT_CODES.runNotSucceeded;
  }
}
