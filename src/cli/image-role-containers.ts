// The fleet's roles as containers of one image, started the way docker-compose.yml starts them
// (its x-fleet-service hardening: read-only root, /tmp on tmpfs, no new privileges, every capability
// dropped; the sites volume read-write for tool workers, read-only for the API), but on the host
// network: each container gets ports of its own through the environment, and talks to the private
// Redis and PostgreSQL on 127.0.0.1. Every listener binds loopback only.
import { setTimeout as sleep } from 'node:timers/promises';
import { podman, podmanOk } from './image-podman.js';

export type RoleName = 'simulator' | 'api' | 'model-worker' | 'tool-worker';

export interface RoleContainer {
  /** The container's name (unique to this experiment run). */
  name: string;
  role: RoleName;
  /** BUILDFLEET_METRICS_PORT: /readyz, /healthz and /metrics on 127.0.0.1. */
  metricsPort: number;
}

const COMMANDS: Record<RoleName, (simulatorPort: number) => string[]> = {
  simulator: (simulatorPort) => ['sim', '--port', String(simulatorPort), '--host', '127.0.0.1'],
  api: () => ['api'],
  'model-worker': () => ['worker', 'model'],
  'tool-worker': () => ['worker', 'tool'],
};

/** Starts one role detached; resolves once podman has started it (not yet ready). */
export async function startRoleContainer({
  image,
  name,
  role,
  metricsPort,
  simulatorPort,
  env,
  sitesVolume,
  extraArgs = [],
}: {
  image: string;
  name: string;
  role: RoleName;
  metricsPort: number;
  simulatorPort: number;
  env: Record<string, string>;
  sitesVolume: string;
  /** Arguments after the role's command (the simulator's latency). */
  extraArgs?: string[];
}): Promise<RoleContainer> {
  const environment = { ...env, BUILDFLEET_METRICS_HOST: '127.0.0.1', BUILDFLEET_METRICS_PORT: String(metricsPort), OTEL_SERVICE_NAME: `buildfleet-${role}` };
  const volume = role === 'tool-worker' ? [`--volume=${sitesVolume}:/data/sites`] : role === 'api' ? [`--volume=${sitesVolume}:/data/sites:ro`] : [];
  await podmanOk([
    'run',
    '--detach',
    `--name=${name}`,
    '--network=host',
    '--read-only',
    '--tmpfs=/tmp',
    '--security-opt=no-new-privileges',
    '--cap-drop=ALL',
    ...volume,
    ...Object.entries(environment).map(([key, value]) => `--env=${key}=${value}`),
    image,
    ...COMMANDS[role](simulatorPort),
    ...extraArgs,
  ]);
  return { name, role, metricsPort };
}

/** Waits until the role's /readyz answers 200; throws with its logs when it exits or times out. */
export async function waitUntilReady(container: RoleContainer, timeoutMs = 120_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${container.metricsPort}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return Date.now() - started;
    const state = (await podman(['inspect', '--format', '{{.State.Status}}', container.name])).stdout.trim();
    if (state !== 'running' || Date.now() - started > timeoutMs) {
      const logs = await podman(['logs', '--tail=30', container.name]);
      throw new Error(`${container.name} did not become ready (state ${state || 'gone'}):\n${logs.stdout}${logs.stderr}`);
    }
    await sleep(500);
  }
}

/** The sum of a counter's (or histogram's _count) samples in the role's /metrics. */
export async function metricTotal(container: RoleContainer, metric: string): Promise<number> {
  const text = await fetch(`http://127.0.0.1:${container.metricsPort}/metrics`).then((response) => response.text());
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${metric}{`) || line.startsWith(`${metric} `)) total += Number(line.slice(line.lastIndexOf(' ') + 1)) || 0;
  }
  return total;
}

/** Sends the image's STOPSIGNAL (SIGTERM) through `podman stop`, SIGKILL after `graceSeconds`;
 * returns the seconds it took, the exit code and the container's last log lines. */
export async function stopRoleContainer(container: RoleContainer, graceSeconds: number): Promise<{ seconds: number; exitCode: number; logs: string }> {
  const started = Date.now();
  await podmanOk(['stop', `--time=${graceSeconds}`, container.name], { timeoutMs: (graceSeconds + 30) * 1000 });
  const seconds = (Date.now() - started) / 1000;
  const exitCode = Number(await podmanOk(['inspect', '--format', '{{.State.ExitCode}}', container.name]));
  const logs = await podman(['logs', '--tail=40', container.name]);
  return { seconds, exitCode, logs: `${logs.stdout}${logs.stderr}` };
}

/** Removes the containers (running or not) and the sites volume; never throws. */
export async function removeRoleContainers(names: readonly string[], sitesVolume: string | null): Promise<void> {
  if (names.length > 0) await podman(['rm', '--force', '--time=5', ...names]).catch(() => undefined);
  if (sitesVolume) await podman(['volume', 'rm', '--force', sitesVolume]).catch(() => undefined);
}
