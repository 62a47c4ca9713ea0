// `buildfleet experiment image` (issue #31): does the image built from the Dockerfile as written
// run the fleet? No registry is reachable here, so the base image is made first (image-base-image.ts)
// and passed as NODE_IMAGE; then, under podman on the host network, against a private Redis and
// PostgreSQL on loopback:
//
//   image        build time, size, HEALTHCHECK/USER/STOPSIGNAL kept, nothing under /app the roles
//                never load (tests, sources, devDependencies)
//   roles        the schema (`migrate`) first, then simulator, API (API, sites and console
//                listeners), model worker and tool worker, each HEALTHCHECK run by podman
//   unprivileged each process runs as uid 1000 (PID 1 as the host sees it) and cannot write its code
//   build        the first API key as docs/deploy.md makes it (`keys bootstrap` in the API
//                container), the demo's build submitted over the API port, followed to success,
//                its site fetched from the sites listener
//   scale        a second model and tool worker; --builds builds at once; every worker's /metrics
//                shows jobs it ran
//   drain        builds in flight, `podman stop` (SIGTERM) the second workers: exit 0 within the
//                grace period, "stopped" with outcome closed, and every build still succeeds
//   stop         every other role stopped the same way exits 0
//
// Every check prints one PASS/FAIL line; the exit code is 1 when any failed. Containers and the
// volume are removed at the end, also on failure; the images stay cached unless --clean.
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startPrivatePostgres, type PrivatePostgres } from '../dev/private-postgres.js';
import { freePorts, startPrivateRedis, type PrivateRedis } from '../dev/private-redis.js';
import { ApiClient } from './api-client.js';
import { runSampleBuild } from './demo-sample-build.js';
import { followRun } from './follow-run.js';
import { dockerfileNodeMajor, ensureBaseImage } from './image-base-image.js';
import { buildProjectImage, inspectImageContents } from './image-build.js';
import { podman, podmanOk, preparePodman } from './image-podman.js';
import {
  metricTotal,
  removeRoleContainers,
  startRoleContainer,
  stopRoleContainer,
  waitUntilReady,
  type RoleContainer,
  type RoleName,
} from './image-role-containers.js';
import { PROJECT_ROOT } from './spawn-role.js';
import { UsageError } from './usage-error.js';

export interface ImageExperimentOptions {
  /** Debian suite of the base image's rootfs. */
  suite: string;
  /** Debian mirror debootstrap fetches from. */
  mirror: string;
  /** Builds submitted at once while two workers of each role run. */
  builds: number;
  /** Seconds `podman stop` waits after SIGTERM before SIGKILL. */
  graceSeconds: number;
  /** Remove the built image and the base image at the end. */
  clean: boolean;
}

export interface CheckLine {
  check: string;
  passed: boolean;
  detail: string;
}

const IMAGE_TAG = 'localhost/buildfleet:experiment';
/** The simulator answers each model call after 1–2 s, so builds stay in flight long enough to stop a worker under them. */
const SIMULATOR_LATENCY = ['--latency-ms', '1000-2000'];
const JOBS_METRIC = 'buildfleet_job_duration_seconds_count';
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

interface ModelCall {
  timestampMs: number;
  durationMs: number | null;
  status: number;
  abandoned: boolean;
  conversationHash: string | null;
  runId: string | null;
  path: string;
}

/** The simulator's recorded Messages API calls of the given runs (`GET /_sim/requests`). */
async function modelCallsOf({ simulatorPort, runIds }: { simulatorPort: number; runIds: readonly string[] }): Promise<ModelCall[]> {
  const response = await fetch(`http://127.0.0.1:${simulatorPort}/_sim/requests`);
  const { requests } = (await response.json()) as { requests: ModelCall[] };
  return requests.filter((call) => call.path === '/v1/messages' && call.runId !== null && runIds.includes(call.runId));
}

/** The first line of /proc/PID/status's Uid: (real uid), as the host sees the container's PID 1. */
function hostUidOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((candidate) => candidate.startsWith('Uid:'));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN);
}

export async function runImageExperiment({ options, print }: { options: ImageExperimentOptions; print: (line: string) => void }): Promise<CheckLine[]> {
  const checks: CheckLine[] = [];
  const check = (name: string, passed: boolean, detail: string) => {
    checks.push({ check: name, passed, detail });
    print(`${passed ? 'PASS' : 'FAIL'}  ${name}: ${detail}`);
  };
  const progress = (line: string) => process.stderr.write(`${line}\n`);
  const run = Date.now().toString(36);
  const containerNames: string[] = [];
  const sitesVolume = `buildfleet-experiment-sites-${run}`;
  let redis: PrivateRedis | null = null;
  let postgres: PrivatePostgres | null = null;
  const redisDir = await mkdtemp(join(tmpdir(), 'buildfleet-image-redis-'));
  let baseTag: string | null = null;
  try {
    await preparePodman({ log: print });
    const baseStarted = Date.now();
    const nodeMajor = dockerfileNodeMajor(readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8'));
    const base = await ensureBaseImage({ nodeMajor, suite: options.suite, mirror: options.mirror, log: progress });
    baseTag = base.tag;
    const baseSource = base.source === 'image' ? 'cached' : base.source === 'rootfs' ? 'imported from the cached rootfs' : 'built';
    print(
      `base image ${base.tag} (node ${base.nodeVersion}, npm ${base.npmVersion}, Debian ${options.suite}): ` +
        `${baseSource} in ${((Date.now() - baseStarted) / 1000).toFixed(0)} s`,
    );

    // 1. The image.
    progress(`podman build --format docker --build-arg NODE_IMAGE=${base.tag} -t ${IMAGE_TAG} (build output below)`);
    const image = await buildProjectImage({ projectRoot: PROJECT_ROOT, baseImage: base.tag, tag: IMAGE_TAG, log: (line) => progress(`  | ${line}`) });
    print(
      `image ${IMAGE_TAG}: built in ${image.buildSeconds.toFixed(0)} s (tagged after ` +
        `${image.taggedSeconds.toFixed(0)} s, then podman removed its build containers), ${mb(image.sizeBytes)}`,
    );
    const contents = await inspectImageContents(IMAGE_TAG);
    check(
      'image holds only what the roles load',
      contents.problems.length === 0,
      contents.problems.length === 0
        ? `/app: ${contents.app.join(', ')}; dist ${mb(contents.distBytes)}, node_modules ${mb(contents.nodeModulesBytes)} (production dependencies only)`
        : contents.problems.join('; '),
    );
    check(
      'image keeps HEALTHCHECK, USER node, STOPSIGNAL SIGTERM',
      image.healthcheck !== null && image.healthcheck.join(' ').includes('/readyz') && image.user === 'node' && image.stopSignal === 'SIGTERM',
      `healthcheck ${image.healthcheck ? 'on /readyz' : 'missing'}, user ${image.user || '(root)'}, stop signal ${image.stopSignal || '(none)'}`,
    );

    // 2. Redis, PostgreSQL and the schema, then the roles.
    redis = await startPrivateRedis({ dataDir: redisDir, quiet: true });
    postgres = await startPrivatePostgres({ quiet: true });
    const [simulatorPort, apiPort, sitesPort, consolePort, ...metricsPorts] = (await freePorts(10)) as [number, number, number, number, ...number[]];
    const env: Record<string, string> = {
      // docker-compose.yml's x-fleet-environment, with loopback addresses for the host network.
      REDIS_URL: redis.url,
      DATABASE_URL: postgres.url,
      BUILDFLEET_PREFIX: 'bf',
      ANTHROPIC_API_KEY: '',
      BUILDFLEET_SIMULATOR_URL: `http://127.0.0.1:${simulatorPort}`,
      BUILDFLEET_PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
      BUILDFLEET_SITES_PUBLIC_URL: `http://127.0.0.1:${sitesPort}`,
      BUILDFLEET_SITES_DIR: '/data/sites',
      BUILDFLEET_SHUTDOWN_TIMEOUT_MS: '600000',
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
    };
    const migrate = await podman([
      'run',
      '--rm',
      '--network=host',
      '--read-only',
      '--cap-drop=ALL',
      `--env=DATABASE_URL=${postgres.url}`,
      IMAGE_TAG,
      'migrate',
    ]);
    check(
      'migrate applies the schema',
      migrate.code === 0,
      migrate.code === 0 ? (migrate.stdout.trim().split('\n').at(-1) ?? 'done') : `exit ${migrate.code}: ${migrate.stderr.trim().slice(-500)}`,
    );
    const apiEnv = {
      BUILDFLEET_API_HOST: '127.0.0.1',
      BUILDFLEET_API_PORT: String(apiPort),
      BUILDFLEET_SITES_HOST: '127.0.0.1',
      BUILDFLEET_SITES_PORT: String(sitesPort),
      BUILDFLEET_CONSOLE_HOST: '127.0.0.1',
      BUILDFLEET_CONSOLE_PORT: String(consolePort),
    };
    let nextMetricsPort = 0;
    const start = async (role: RoleName, suffix: string): Promise<RoleContainer> => {
      const name = `buildfleet-experiment-${run}-${role}${suffix}`;
      containerNames.push(name);
      const container = await startRoleContainer({
        image: IMAGE_TAG,
        name,
        role,
        metricsPort: metricsPorts[nextMetricsPort++]!,
        simulatorPort,
        env: role === 'api' ? { ...env, ...apiEnv } : env,
        sitesVolume,
        extraArgs: role === 'simulator' ? SIMULATOR_LATENCY : [],
      });
      const readyMs = await waitUntilReady(container);
      progress(`${name} ready in ${(readyMs / 1000).toFixed(1)} s`);
      return container;
    };
    await podmanOk(['volume', 'create', sitesVolume]);
    const simulator = await start('simulator', '');
    const api = await start('api', '');
    const modelWorker = await start('model-worker', '-1');
    const toolWorker = await start('tool-worker', '-1');
    const listeners = await Promise.all(
      [apiPort, sitesPort, consolePort].map((port) =>
        fetch(`http://127.0.0.1:${port}/`).then(
          (response) => `${port} ${response.status}`,
          () => `${port} refused`,
        ),
      ),
    );
    check(
      'API process serves API, sites and console listeners',
      listeners.every((line) => !line.endsWith('refused')),
      `API ${listeners[0]}, sites ${listeners[1]}, console ${listeners[2]}`,
    );

    // 3 and 4. Health and privileges of every role.
    const healthAndPrivileges = async (container: RoleContainer) => {
      const health = await podman(['healthcheck', 'run', container.name]);
      check(
        `HEALTHCHECK ${container.name.replace(`buildfleet-experiment-${run}-`, '')}`,
        health.code === 0,
        health.code === 0 ? `healthy (${health.stdout.trim() || 'exit 0'})` : `exit ${health.code}: ${(health.stderr || health.stdout).trim()}`,
      );
      const uid = (await podman(['exec', container.name, 'id', '-u'])).stdout.trim();
      const pid = Number(await podmanOk(['inspect', '--format', '{{.State.Pid}}', container.name]));
      const hostUid = hostUidOf(pid);
      const write = await podman(['exec', container.name, 'sh', '-c', 'touch /app/dist/src/cli.js']);
      check(
        `unprivileged ${container.name.replace(`buildfleet-experiment-${run}-`, '')}`,
        uid === '1000' && hostUid === 1000 && write.code !== 0,
        `id -u ${uid}, PID 1 uid on the host ${hostUid}, writing its code: ` +
          `${write.code === 0 ? 'ALLOWED' : (write.stderr.trim().split('\n').at(-1) ?? 'refused')}`,
      );
    };
    for (const container of [simulator, api, modelWorker, toolWorker]) await healthAndPrivileges(container);
    // The containers run read-only like compose's; without that, file ownership alone must refuse.
    const writable = await podman(['run', '--rm', '--network=none', '--entrypoint=sh', IMAGE_TAG, '-c', 'touch /app/dist/src/cli.js || exit 3; echo written']);
    const owner = (
      await podman(['run', '--rm', '--network=none', '--entrypoint=stat', IMAGE_TAG, '-c', '%U:%G %a', '/app/dist/src/cli.js', '/app/node_modules'])
    ).stdout
      .trim()
      .replace(/\n/g, ', ');
    check(
      'code unwritable on a writable root too (ownership)',
      writable.code === 3,
      `${writable.code === 3 ? 'touch refused' : 'touch ALLOWED'}; /app/dist/src/cli.js, /app/node_modules: ${owner}`,
    );

    // 5. The first key as the docs make it, then the demo's build over the published port.
    const bootstrap = JSON.parse(await podmanOk(['exec', api.name, 'node', 'dist/src/cli.js', 'keys', 'bootstrap', '--json'])) as {
      created: boolean;
      key?: string;
    };
    if (!bootstrap.key) throw new Error('keys bootstrap printed no key');
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const sample = await runSampleBuild({ apiUrl, apiKey: bootstrap.key, log: progress });
    check(
      'build over the API port, followed to its published site',
      sample.ok,
      sample.ok ? `${sample.view.id} succeeded; site ${sample.siteUrl} served HTML (200, sandboxed)` : sample.problem,
    );

    // 6. Scale: a second worker of each role shares the work.
    const modelWorker2 = await start('model-worker', '-2');
    const toolWorker2 = await start('tool-worker', '-2');
    for (const container of [modelWorker2, toolWorker2]) await healthAndPrivileges(container);
    const workers = [modelWorker, modelWorker2, toolWorker, toolWorker2];
    const before = await Promise.all(workers.map((worker) => metricTotal(worker, JOBS_METRIC)));
    const client = new ApiClient(apiUrl, bootstrap.key);
    const submitAndFollow = async (index: number) => {
      const { id } = await client.request<{ id: string }>('POST', '/v1/runs', {
        prompt: `Build a small website for "Harbor Lights Bakery" branch ${index + 1}: a home page with opening hours and a stylesheet.`,
      });
      return followRun(client, id, () => undefined);
    };
    const scaleStarted = Date.now();
    const scaleViews = await Promise.all(Array.from({ length: options.builds }, (_, index) => submitAndFollow(index)));
    const after = await Promise.all(workers.map((worker) => metricTotal(worker, JOBS_METRIC)));
    const shares = workers.map((worker, index) => `${worker.name.replace(`buildfleet-experiment-${run}-`, '')} ${after[index]! - before[index]!}`);
    const succeeded = scaleViews.filter((view) => view.status === 'succeeded').length;
    check(
      'scale: second workers share the work',
      succeeded === options.builds && workers.every((_, index) => after[index]! > before[index]!),
      `${succeeded}/${options.builds} builds succeeded in ${((Date.now() - scaleStarted) / 1000).toFixed(0)} s; jobs run: ${shares.join(', ')}`,
    );

    // 7. SIGTERM drains: stop the second workers under builds in flight.
    const inFlight = Array.from({ length: 2 }, (_, index) => submitAndFollow(options.builds + index));
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const jobsBeforeStop = await Promise.all([modelWorker2, toolWorker2].map((worker) => metricTotal(worker, JOBS_METRIC)));
    const stopAt = Date.now();
    const stops = await Promise.all([modelWorker2, toolWorker2].map((worker) => stopRoleContainer(worker, options.graceSeconds)));
    const drainViews = await Promise.all(inFlight);
    const calls = await modelCallsOf({ simulatorPort, runIds: drainViews.map((view) => view.id) });
    stops.forEach((stop, index) => {
      const worker = [modelWorker2, toolWorker2][index]!;
      const closed = /"event":"shutdown-end"[^\n]*"outcome":"closed"/.test(stop.logs);
      check(
        `SIGTERM drains ${worker.name.replace(`buildfleet-experiment-${run}-`, '')}`,
        stop.exitCode === 0 && closed && stop.seconds < options.graceSeconds,
        `podman stop took ${stop.seconds.toFixed(1)} s (grace ${options.graceSeconds} ` +
          `s), exit ${stop.exitCode}, ${closed ? '"stopped" outcome closed' : 'no graceful "stopped" line'}; ` +
          `it had run ${jobsBeforeStop[index]} jobs since it started`,
      );
    });
    check(
      'builds in flight during the stop finish',
      drainViews.every((view) => view.status === 'succeeded'),
      drainViews.map((view) => `${view.id} ${view.status}`).join(', '),
    );
    // What the provider saw (the simulator's request log): a drained worker abandons no call, and
    // nothing it had answered is asked (and paid for) again by the worker that took over.
    const paid = new Map<string, number>();
    for (const call of calls) if (call.status === 200 && call.conversationHash) paid.set(call.conversationHash, (paid.get(call.conversationHash) ?? 0) + 1);
    const paidTwice = [...paid.values()].filter((count) => count > 1).length;
    const abandoned = calls.filter((call) => call.abandoned).length;
    const inFlightAtStop = calls.filter((call) => call.timestampMs <= stopAt && call.timestampMs + (call.durationMs ?? 0) >= stopAt).length;
    check(
      'nothing abandoned or paid twice across the stop',
      calls.length > 0 && abandoned === 0 && paidTwice === 0,
      `${calls.length} model calls for these builds, ${inFlightAtStop} in flight at the SIGTERM ` +
        `(either model worker), ${abandoned} abandoned, ${paidTwice} conversations paid twice`,
    );

    // 8. Every other role stops the same way.
    for (const container of [api, modelWorker, toolWorker, simulator]) {
      const stop = await stopRoleContainer(container, options.graceSeconds);
      check(
        `SIGTERM stops ${container.name.replace(`buildfleet-experiment-${run}-`, '')}`,
        stop.exitCode === 0 && stop.seconds < options.graceSeconds,
        `exit ${stop.exitCode} in ${stop.seconds.toFixed(1)} s`,
      );
    }
  } catch (error) {
    check('experiment ran to the end', false, error instanceof Error ? error.message : String(error));
  } finally {
    await removeRoleContainers(containerNames, sitesVolume);
    await redis?.stop().catch(() => undefined);
    await postgres?.stop().catch(() => undefined);
    await rm(redisDir, { recursive: true, force: true });
    if (options.clean) {
      await podman(['rmi', '--force', IMAGE_TAG, ...(baseTag ? [baseTag] : [])]);
      // Untagged images are the build's stage layers, kept as podman's build cache (GBs after a few runs).
      await podman(['image', 'prune', '--force']);
      print(`--clean: removed ${IMAGE_TAG}${baseTag ? ` and ${baseTag}` : ''} and the untagged images of the build cache (the rootfs tarball stays cached)`);
    }
  }
  return checks;
}

export async function runImageExperimentCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      suite: { type: 'string', default: 'bookworm' },
      mirror: { type: 'string', default: 'http://deb.debian.org/debian' },
      builds: { type: 'string', default: '4' },
      'grace-s': { type: 'string', default: '60' },
      clean: { type: 'boolean', default: false },
    },
  });
  const positive = (name: string, raw: string | undefined) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) throw new UsageError(`--${name} must be a positive whole number, not ${JSON.stringify(raw)}`);
    return value;
  };
  if (!/^[a-z]+$/.test(values.suite ?? '')) throw new UsageError(`--suite must be a Debian suite name (bookworm, trixie), not ${JSON.stringify(values.suite)}`);
  if (!/^https?:\/\//.test(values.mirror ?? ''))
    throw new UsageError(`--mirror must be an http(s) URL of a Debian mirror, not ${JSON.stringify(values.mirror)}`);
  const builds = positive('builds', values.builds);
  if (builds < 2) throw new UsageError('--builds must be at least 2: two workers of each role need work to share');
  const graceSeconds = positive('grace-s', values['grace-s']);
  const started = Date.now();
  const checks = await runImageExperiment({
    options: { suite: values.suite!, mirror: values.mirror!, builds, graceSeconds, clean: values.clean ?? false },
    print: (line) => process.stdout.write(`${line}\n`),
  });
  const failed = checks.filter((line) => !line.passed);
  process.stdout.write(`${checks.length - failed.length} passed, ${failed.length} failed (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  return failed.length === 0 ? 0 : 1;
}
