// docker-compose.yml, checked without Docker: the services, their health checks and restart
// policies, that every fleet process gets a valid configuration from it, and that Prometheus
// scrapes every fleet service. docker-compose.shards.yml, laid over it as `docker compose -f … -f …`
// would: every shard has its own workers and every process the same shard count.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { PROJECT_ROOT } from '../../src/cli/spawn-role.js';
import { configSchema, loadConfig } from '../../src/config.js';
import { durationMs, readComposeFile, readComposeFiles, type ComposeFile, type ComposeService } from './support/compose-file.js';

const compose = readComposeFile(join(PROJECT_ROOT, 'docker-compose.yml'));
const FLEET_ROLES = {
  simulator: 'sim',
  api: 'api',
  'model-worker': 'worker',
  'tool-worker': 'worker',
} as const;
const fleetServices = Object.keys(FLEET_ROLES) as Array<keyof typeof FLEET_ROLES>;

function serviceOf(name: string): ComposeService {
  const service = compose.services[name];
  if (!service) throw new Error(`docker-compose.yml has no service ${name}`);
  return service;
}

function environmentOf(name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(serviceOf(name).environment ?? {}).map(([key, value]) => [key, value === null ? '' : String(value)]));
}

describe('docker-compose.yml', () => {
  it('runs the fleet with Redis, PostgreSQL, Jaeger, Prometheus and Grafana, each restarted unless stopped (the one-shot migrate aside)', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['api', 'grafana', 'jaeger', 'migrate', 'model-worker', 'postgres', 'prometheus', 'redis', 'simulator', 'tool-worker'].sort(),
    );
    for (const [name, service] of Object.entries(compose.services)) expect(service.restart, name).toBe(name === 'migrate' ? 'no' : 'unless-stopped');
  });

  it('keeps run history in PostgreSQL on a volume, its schema applied by a one-shot migrate before the fleet starts (issue #21)', () => {
    const postgres = serviceOf('postgres');
    expect(postgres.image).toMatch(/^postgres:\d+/);
    expect(postgres.volumes?.some((volume) => volume.startsWith('postgres-data:'))).toBe(true);
    expect(postgres.healthcheck?.test).toEqual(expect.arrayContaining(['CMD', 'pg_isready']));
    const migrate = serviceOf('migrate');
    expect(migrate.image).toBe(serviceOf('api').image);
    expect(migrate.command).toEqual(['migrate']);
    expect(migrate.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' } });
    const environment = environmentOf('migrate');
    const database = new URL(loadConfig(environment).DATABASE_URL!);
    expect(database.hostname).toBe('postgres');
    const postgresEnvironment = Object.fromEntries(Object.entries(postgres.environment ?? {}).map(([key, value]) => [key, String(value)]));
    expect(decodeURIComponent(database.username)).toBe(postgresEnvironment.POSTGRES_USER);
    expect(decodeURIComponent(database.password)).toBe(postgresEnvironment.POSTGRES_PASSWORD);
    expect(database.pathname).toBe(`/${postgresEnvironment.POSTGRES_DB}`);
    for (const name of ['api', 'model-worker', 'tool-worker']) {
      expect(serviceOf(name).depends_on, name).toMatchObject({ migrate: { condition: 'service_completed_successfully' } });
      expect(environmentOf(name).DATABASE_URL, name).toBe(environment.DATABASE_URL);
    }
  });

  it('configures Redis as BullMQ needs it: AOF, no eviction, a volume, a ping health check', () => {
    const redis = serviceOf('redis');
    expect(redis.image).toMatch(/^redis:7/);
    const command = (redis.command ?? []).join(' ');
    expect(command).toContain('--appendonly yes');
    expect(command).toContain('--appendfsync everysec');
    expect(command).toContain('--maxmemory-policy noeviction');
    expect(redis.volumes?.some((volume) => volume.endsWith(':/data'))).toBe(true);
    expect(redis.healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
  });

  it('runs every role from the one image, with the CLI command of the role', () => {
    const images = new Set(fleetServices.map((name) => serviceOf(name).image));
    expect(images.size).toBe(1);
    for (const name of fleetServices) {
      const command = serviceOf(name).command ?? [];
      expect(command[0], name).toBe(FLEET_ROLES[name]);
      expect(serviceOf(name).build, name).toBeDefined();
    }
    expect(serviceOf('model-worker').command).toEqual(['worker', 'model']);
    expect(serviceOf('tool-worker').command).toEqual(['worker', 'tool']);
    expect(serviceOf('simulator').command).toEqual(expect.arrayContaining(['--port', '--host', '0.0.0.0']));
  });

  it('gives every fleet service a health check on its /readyz and a stop grace period past the shutdown timeout', () => {
    for (const name of fleetServices) {
      const service = serviceOf(name);
      const config = loadConfig(environmentOf(name));
      const test = Array.isArray(service.healthcheck?.test) ? service.healthcheck.test.join(' ') : (service.healthcheck?.test ?? '');
      expect(test, name).toContain(`127.0.0.1:${config.BUILDFLEET_METRICS_PORT}/readyz`);
      expect(durationMs(service.stop_grace_period ?? '0s'), name).toBeGreaterThanOrEqual(config.BUILDFLEET_SHUTDOWN_TIMEOUT_MS + 3000);
      expect(service.read_only, name).toBe(true);
      expect(service.cap_drop, name).toEqual(['ALL']);
    }
  });

  it('lets the workers scale: no container names, no published ports', () => {
    for (const name of ['model-worker', 'tool-worker']) {
      expect(serviceOf(name).container_name, name).toBeUndefined();
      expect(serviceOf(name).ports, name).toBeUndefined();
    }
    for (const [name, service] of Object.entries(compose.services)) expect(service.container_name, name).toBeUndefined();
  });

  it('sets only environment variables the config schema knows (or OTEL_ and NODE_ ones), with values it accepts', () => {
    for (const name of fleetServices) {
      const environment = environmentOf(name);
      const unknown = Object.keys(environment).filter((key) => !(key in configSchema.shape) && !/^(OTEL_|NODE_)/.test(key));
      expect(unknown, name).toEqual([]);
      const config = loadConfig(environment);
      expect(config.BUILDFLEET_METRICS_HOST, name).toBe('0.0.0.0');
      expect(config.OTEL_EXPORTER_OTLP_ENDPOINT, name).toBe('http://jaeger:4318');
      expect(config.REDIS_URL, name).toBe('redis://redis:6379');
    }
    expect(loadConfig(environmentOf('api')).BUILDFLEET_API_HOST).toBe('0.0.0.0');
  });

  it('calls the simulator without a key and Claude with one', () => {
    const simulatorPort = (serviceOf('simulator').command ?? [])[(serviceOf('simulator').command ?? []).indexOf('--port') + 1];
    const withoutKey = loadConfig(environmentOf('model-worker'));
    expect(withoutKey.ANTHROPIC_API_KEY).toBeUndefined();
    expect(withoutKey.ANTHROPIC_BASE_URL).toBeUndefined();
    expect(withoutKey.BUILDFLEET_SIMULATOR_URL).toBe(`http://simulator:${simulatorPort}`);
    const withKey = readComposeFile(join(PROJECT_ROOT, 'docker-compose.yml'), { ANTHROPIC_API_KEY: 'sk-ant-test' });
    const environment = Object.fromEntries(Object.entries(withKey.services['model-worker']?.environment ?? {}).map(([key, value]) => [key, String(value ?? '')]));
    expect(loadConfig(environment).ANTHROPIC_API_KEY).toBe('sk-ant-test');
  });

  it('turns webhooks on for the API and the tool workers when BUILDFLEET_WEBHOOK_SECRET is exported, off without it', () => {
    // The API refuses a run with a webhook without it (webhooks_not_configured); the tool workers,
    // which deliver, sign with it.
    for (const name of ['api', 'tool-worker']) expect(loadConfig(environmentOf(name)).BUILDFLEET_WEBHOOK_SECRET, name).toBeUndefined();
    const secret = 'a'.repeat(64);
    const withSecret = readComposeFile(join(PROJECT_ROOT, 'docker-compose.yml'), { BUILDFLEET_WEBHOOK_SECRET: secret });
    for (const name of ['api', 'tool-worker']) {
      const environment = Object.fromEntries(Object.entries(withSecret.services[name]?.environment ?? {}).map(([key, value]) => [key, String(value ?? '')]));
      expect(loadConfig(environment).BUILDFLEET_WEBHOOK_SECRET, name).toBe(secret);
    }
  });

  it('makes the public URL reachable from the host and from inside the network', () => {
    const publicUrl = new URL(loadConfig(environmentOf('api')).BUILDFLEET_PUBLIC_URL ?? '');
    const api = serviceOf('api');
    expect(api.networks?.default?.aliases).toContain(publicUrl.hostname);
    expect(api.ports).toContain(`${publicUrl.port}:${loadConfig(environmentOf('api')).BUILDFLEET_API_PORT}`);
  });

  it('serves sites on an origin of their own, reachable from the host and from inside the network', () => {
    const api = serviceOf('api');
    const config = loadConfig(environmentOf('api'));
    const sitesUrl = new URL(config.BUILDFLEET_SITES_PUBLIC_URL ?? '');
    expect(sitesUrl.origin).not.toBe(new URL(config.BUILDFLEET_PUBLIC_URL ?? '').origin);
    expect(api.networks?.default?.aliases).toContain(sitesUrl.hostname);
    expect(api.ports).toContain(`${sitesUrl.port}:${config.BUILDFLEET_SITES_PORT}`);
    expect(config.BUILDFLEET_SITES_HOST).toBe('0.0.0.0');
    // The tool workers check and screenshot the sites there: the same URL in their environment.
    expect(loadConfig(environmentOf('tool-worker')).BUILDFLEET_SITES_PUBLIC_URL).toBe(config.BUILDFLEET_SITES_PUBLIC_URL);
  });

  it('serves the run console on a third origin, published, with a link to the Jaeger UI (issue #18)', () => {
    const api = serviceOf('api');
    const config = loadConfig(environmentOf('api'));
    const consoleUrl = new URL(config.BUILDFLEET_CONSOLE_PUBLIC_URL ?? '');
    expect(consoleUrl.origin).not.toBe(new URL(config.BUILDFLEET_PUBLIC_URL ?? '').origin);
    expect(consoleUrl.origin).not.toBe(new URL(config.BUILDFLEET_SITES_PUBLIC_URL ?? '').origin);
    expect(api.ports).toContain(`${consoleUrl.port}:${config.BUILDFLEET_CONSOLE_PORT}`);
    expect(config.BUILDFLEET_CONSOLE_HOST).toBe('0.0.0.0');
    expect(serviceOf('jaeger').ports).toContain(`${new URL(config.BUILDFLEET_TRACE_URL_TEMPLATE!.replace('{traceId}', 'x')).port}:16686`);
  });

  it('keeps sites on a named volume the tool workers write and the API only reads (issue #21)', () => {
    const directory = loadConfig(environmentOf('api')).BUILDFLEET_SITES_DIR;
    expect(directory).toMatch(/^\//);
    for (const name of ['tool-worker', 'model-worker']) expect(loadConfig(environmentOf(name)).BUILDFLEET_SITES_DIR, name).toBe(directory);
    expect(serviceOf('tool-worker').volumes).toContain(`sites-data:${directory}`);
    expect(serviceOf('api').volumes).toContain(`sites-data:${directory}:ro`);
    expect(Object.keys(compose.volumes ?? {})).toContain('sites-data');
    // The image creates the mount point owned by its non-root user, so a new named volume is writable.
    expect(readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8')).toContain(`chown node:node ${directory}`);
  });

  it('exposes Jaeger (OTLP over HTTP), Grafana and the API on their usual ports', () => {
    expect(serviceOf('jaeger').environment?.COLLECTOR_OTLP_ENABLED).toBe('true');
    expect(serviceOf('jaeger').ports).toEqual(expect.arrayContaining(['16686:16686', '4318:4318']));
    expect(serviceOf('grafana').ports).toContain('3000:3000');
    expect(serviceOf('prometheus').ports).toContain('9090:9090');
  });

  it('mounts the Prometheus and Grafana files that exist in deploy/', () => {
    for (const name of ['prometheus', 'grafana']) {
      for (const volume of serviceOf(name).volumes ?? []) {
        const [source] = volume.split(':');
        if (source?.startsWith('./')) expect(existsSync(join(PROJECT_ROOT, source)), `${name}: ${volume}`).toBe(true);
      }
    }
  });

  it('has Prometheus scrape every fleet service, every replica, on its metrics port', () => {
    const prometheus = parseYaml(readFileSync(join(PROJECT_ROOT, 'deploy/prometheus/prometheus.yml'), 'utf8')) as {
      rule_files: string[];
      scrape_configs: Array<{ job_name: string; dns_sd_configs?: Array<{ names: string[]; type: string; port: number }> }>;
    };
    for (const name of fleetServices) {
      const job = prometheus.scrape_configs.find((candidate) => candidate.dns_sd_configs?.some((discovery) => discovery.names.includes(name)));
      expect(job, `no scrape job discovers ${name}`).toBeDefined();
      const discovery = job?.dns_sd_configs?.find((candidate) => candidate.names.includes(name));
      // Type A: one record per container, so every replica of a scaled service is a target.
      expect(discovery?.type, name).toBe('A');
      expect(discovery?.port, name).toBe(loadConfig(environmentOf(name)).BUILDFLEET_METRICS_PORT);
      expect(job?.job_name, name).toBe(name);
    }
    expect(prometheus.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
    expect(serviceOf('prometheus').volumes).toContain('./deploy/prometheus:/etc/prometheus:ro');
  });
});

describe('docker-compose.shards.yml over docker-compose.yml (queue shards, issue #20)', () => {
  const SHARDS = 3;
  const sharded = readComposeFiles([join(PROJECT_ROOT, 'docker-compose.yml'), join(PROJECT_ROOT, 'docker-compose.shards.yml')]);
  const environmentIn = (file: ComposeFile, name: string) =>
    Object.fromEntries(Object.entries(file.services[name]?.environment ?? {}).map(([key, value]) => [key, value === null ? '' : String(value)]));
  const fleetImage = serviceOf('api').image;
  const fleetServiceNames = Object.keys(sharded.services).filter((name) => sharded.services[name]?.image === fleetImage);
  const workersOf = (queue: 'model' | 'tool') =>
    fleetServiceNames.filter((name) => JSON.stringify(sharded.services[name]?.command) === JSON.stringify(['worker', queue]));

  it('keeps the base file’s services as shard 0 and adds model and tool workers for shards 1 and 2, each under a name of its own', () => {
    expect(Object.keys(sharded.services).sort()).toEqual(
      [...Object.keys(compose.services), 'model-worker-shard-1', 'model-worker-shard-2', 'tool-worker-shard-1', 'tool-worker-shard-2'].sort(),
    );
    for (const queue of ['model', 'tool'] as const) {
      const workers = workersOf(queue);
      const shards = workers.map((name) => loadConfig(environmentIn(sharded, name)).BUILDFLEET_QUEUE_SHARD);
      // One service per shard, every shard served: no shard's jobs wait for a worker that never comes.
      expect(shards.sort(), queue).toEqual([0, 1, 2]);
      expect(workers.find((name) => loadConfig(environmentIn(sharded, name)).BUILDFLEET_QUEUE_SHARD === 0), queue).toBe(`${queue}-worker`);
    }
  });

  it('gives every fleet process the same shard count, with a configuration the config schema accepts', () => {
    expect(fleetServiceNames).toEqual(expect.arrayContaining(['migrate', 'simulator', 'api', 'model-worker', 'tool-worker']));
    for (const name of fleetServiceNames) {
      const environment = environmentIn(sharded, name);
      const unknown = Object.keys(environment).filter((key) => !(key in configSchema.shape) && !/^(OTEL_|NODE_)/.test(key));
      expect(unknown, name).toEqual([]);
      const config = loadConfig(environment);
      expect(config.BUILDFLEET_QUEUE_SHARDS, name).toBe(SHARDS);
      // The base file's settings survive the override (environment merges by key).
      expect(config.REDIS_URL, name).toBe('redis://redis:6379');
      expect(config.BUILDFLEET_PREFIX, name).toBe(loadConfig(environmentOf('api')).BUILDFLEET_PREFIX);
    }
    // Without the override the fleet is the one shard it always was.
    expect(loadConfig(environmentOf('api')).BUILDFLEET_QUEUE_SHARDS).toBe(1);
  });

  it('runs every shard’s workers like shard 0’s: same image, health check, grace period, lockdown and dependencies, free to scale', () => {
    for (const queue of ['model', 'tool'] as const) {
      const shardZero = serviceOf(`${queue}-worker`);
      for (const name of workersOf(queue)) {
        const service = sharded.services[name]!;
        for (const field of ['image', 'build', 'healthcheck', 'stop_grace_period', 'read_only', 'cap_drop', 'security_opt', 'tmpfs', 'restart'] as const) {
          expect(service[field], `${name} ${field}`).toEqual(shardZero[field]);
        }
        expect(service.depends_on, name).toEqual(shardZero.depends_on);
        expect(service.container_name, name).toBeUndefined();
        expect(service.ports, name).toBeUndefined();
        const environment = environmentIn(sharded, name);
        expect(environment.OTEL_SERVICE_NAME, name).toBe(environmentOf(`${queue}-worker`).OTEL_SERVICE_NAME);
      }
    }
  });

  it('mounts the sites volume, writable, in the tool workers of every shard (issue #21)', () => {
    for (const name of workersOf('tool')) {
      const directory = loadConfig(environmentIn(sharded, name)).BUILDFLEET_SITES_DIR;
      expect(sharded.services[name]?.volumes, name).toContain(`sites-data:${directory}`);
    }
    expect(Object.keys(sharded.volumes ?? {})).toContain('sites-data');
  });

  it('has Prometheus scrape every shard’s workers under the shard-0 service’s job (a network alias of its DNS name)', () => {
    const prometheus = parseYaml(readFileSync(join(PROJECT_ROOT, 'deploy/prometheus/prometheus.yml'), 'utf8')) as {
      scrape_configs: Array<{ job_name: string; dns_sd_configs?: Array<{ names: string[] }> }>;
    };
    for (const queue of ['model', 'tool'] as const) {
      const job = prometheus.scrape_configs.find((candidate) => candidate.job_name === `${queue}-worker`);
      const discovered = job?.dns_sd_configs?.flatMap((discovery) => discovery.names) ?? [];
      for (const name of workersOf(queue)) {
        const dnsNames = [name, ...(sharded.services[name]?.networks?.default?.aliases ?? [])];
        expect(dnsNames.some((dnsName) => discovered.includes(dnsName)), name).toBe(true);
      }
    }
  });
});
