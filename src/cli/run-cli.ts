// Dispatches `buildfleet <command>`; returns the exit code.
import { parseArgs } from 'node:util';
import { ApiClient, ApiClientError, resolveApiKey, resolveApiUrl } from './api-client.js';
import { followRun } from './follow-run.js';

export const USAGE = `Usage: buildfleet <command> [options]

Commands:
  dev                         run the whole fleet locally (private redis, simulator, API, workers)
  demo [--once]               dev + submit a sample build, follow it, print the site URL
  submit "<prompt>" [--follow] [--scenario NAME] [--model M] [--max-turns N]
  scenarios [--only a,b]      run every stop-reason scenario against the fleet; table + exit code
  experiment tiers [--runs N] flat vs tiered tools, recovery off vs on (prints a table)
  experiment crash [--runs N] SIGKILL workers and restart Redis during builds; audit effects
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
  status <runId>              print a run's state as JSON
  input <runId> "<text>"      answer a run's open question
  cancel <runId>              cancel a run
  keys create --tenant T --scopes runs:read,runs:write[,admin] [--name N]
  keys list [--tenant T] / keys revoke <keyId>   API keys (talks to REDIS_URL directly)
  keys policy get|set|reset <tenant> [field=value …]   a tenant's limits (docs/tenants.md)
  migrate [--if-configured]   apply the history schema's migrations to DATABASE_URL (docs/history.md);
                              --if-configured: exit 0 when DATABASE_URL is unset
  api                         run the API process
  worker model|tool           run a worker process
  sim [--port N] [--latency-ms MIN-MAX] [--profile instant|realistic|fast]   run the model simulator
  parse --tools FILE [--no-intent]        parse model text on stdin for tool calls

Commands that talk to a running fleet take --api URL (default BUILDFLEET_API_URL, else the
local dev fleet) and --key KEY (default BUILDFLEET_API_KEY, else the dev key).`;

function clientFrom(values: { api?: string | undefined; key?: string | undefined }): ApiClient {
  return new ApiClient(resolveApiUrl(values.api), resolveApiKey(values.key));
}

const connectionOptions = { api: { type: 'string' }, key: { type: 'string' } } as const;

export async function runCli(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
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
            follow: { type: 'boolean', default: false },
            scenario: { type: 'string' },
            model: { type: 'string' },
            'max-turns': { type: 'string' },
          },
        });
        const prompt = positionals.join(' ').trim();
        if (!prompt) throw new UsageError('submit needs a prompt: buildfleet submit "a bakery landing page"');
        const client = clientFrom(values);
        const created = await client.request<{ id: string; status: string }>('POST', '/v1/runs', {
          prompt,
          ...(values.model ? { model: values.model } : {}),
          ...(values['max-turns'] ? { maxTurns: Number(values['max-turns']) } : {}),
          ...(values.scenario ? { options: { scenario: values.scenario } } : {}),
        });
        console.log(created.id);
        if (!values.follow) return 0;
        const view = await followRun(client, created.id, (line) => console.log(line));
        if (view.deployment.live) console.log(`site: ${view.deployment.live.url}`);
        return view.status === 'succeeded' ? 0 : 1;
      }
      case 'status':
      case 'cancel':
      case 'input': {
        const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: connectionOptions });
        const runId = positionals[0];
        if (!runId) throw new UsageError(`${command} needs a run id`);
        const client = clientFrom(values);
        const result =
          command === 'status'
            ? await client.request('GET', `/v1/runs/${runId}`)
            : command === 'cancel'
              ? await client.request('POST', `/v1/runs/${runId}/cancel`)
              : await client.request('POST', `/v1/runs/${runId}/input`, { text: positionals.slice(1).join(' ') });
        console.log(JSON.stringify(result, null, 2));
        return 0;
      }
      case 'scenarios': {
        const { values } = parseArgs({ args: rest, options: { ...connectionOptions, only: { type: 'string' } } });
        const { runScenarioMatrix, formatScenarioTable } = await import('./run-scenarios.js');
        const rows = await runScenarioMatrix(clientFrom(values), values.only ? { only: values.only.split(',') } : {});
        console.log(formatScenarioTable(rows));
        for (const row of rows.filter((candidate) => !candidate.passed)) console.log(`  ${row.scenario} (${row.runId}): ${row.detail}`);
        return rows.every((row) => row.passed) ? 0 : 1;
      }
      case 'experiment': {
        const [name, ...experimentArguments] = rest;
        if (name === 'tiers') {
          const { runTiersExperimentCommand } = await import('./experiment-tiers.js');
          return await runTiersExperimentCommand(experimentArguments);
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
        throw new UsageError('experiment needs a name: tiers | crash | killswitch | production | admission | cost | soak');
      }
      case 'keys': {
        const { runKeysCommand } = await import('./keys-command.js');
        return await runKeysCommand({ argv: rest });
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
        if (role !== 'model' && role !== 'tool') throw new UsageError('worker needs a role: buildfleet worker model|tool');
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
        console.log(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`buildfleet: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof ApiClientError) {
      console.error(`buildfleet: the API answered ${error.status} ${error.code}: ${error.message}`);
      return 1;
    }
    console.error(`buildfleet: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

export class UsageError extends Error {}
