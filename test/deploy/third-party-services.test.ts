// The parts of docker-compose.yml `experiment image` cannot run here (no registry: Jaeger,
// Prometheus, Grafana, the Redis and PostgreSQL images), checked offline where they point at each
// other or at files: a path or name that is wrong only shows when the stack starts.
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { PROJECT_ROOT } from '../../src/cli/spawn-role.js';
import { readComposeFile, type ComposeService } from './support/compose-file.js';

const compose = readComposeFile(join(PROJECT_ROOT, 'docker-compose.yml'));
const THIRD_PARTY = ['redis', 'postgres', 'jaeger', 'prometheus', 'grafana'] as const;

function serviceOf(name: string): ComposeService {
  const service = compose.services[name];
  if (!service) throw new Error(`docker-compose.yml has no service ${name}`);
  return service;
}

/** The file on this side of a bind mount that a path inside the container reads, or null when no
 * `./…` mount covers it. */
function hostPathOf(service: ComposeService, containerPath: string): string | null {
  for (const volume of service.volumes ?? []) {
    const [source, target] = volume.split(':');
    if (!source?.startsWith('./') || !target) continue;
    const relative = posix.relative(target, containerPath);
    if (!relative.startsWith('..') && !posix.isAbsolute(relative)) return join(PROJECT_ROOT, source, relative);
  }
  return null;
}

describe('docker-compose.yml third-party services', () => {
  it('pins every third-party image to a version (a moving tag changes the stack under a tested file)', () => {
    for (const name of THIRD_PARTY) expect(serviceOf(name).image, name).toMatch(/^[\w./-]+:v?\d+(\.\d+)*(-[\w.]+)?$/);
  });

  it('starts Prometheus on the configuration file the mounted deploy/prometheus holds, and its rule files', () => {
    const prometheus = serviceOf('prometheus');
    const configFlag = prometheus.command?.find((argument) => argument.startsWith('--config.file='));
    const configPath = hostPathOf(prometheus, configFlag!.slice('--config.file='.length));
    expect(configPath && existsSync(configPath), configFlag).toBe(true);
    const config = parseYaml(readFileSync(configPath!, 'utf8')) as { rule_files?: string[] };
    for (const ruleFile of config.rule_files ?? []) {
      const rulesPath = hostPathOf(prometheus, ruleFile);
      expect(rulesPath && existsSync(rulesPath), ruleFile).toBe(true);
    }
    // The health check asks the port Prometheus listens on (its default, no --web.listen-address).
    expect(prometheus.command?.some((argument) => argument.startsWith('--web.listen-address'))).toBe(false);
    expect(JSON.stringify(prometheus.healthcheck?.test)).toContain('127.0.0.1:9090/-/ready');
  });

  it("opens Grafana's home dashboard from a file the mounted dashboards folder holds", () => {
    const grafana = serviceOf('grafana');
    const home = String(grafana.environment?.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH);
    const homePath = hostPathOf(grafana, home);
    expect(homePath && existsSync(homePath), home).toBe(true);
    expect(hostPathOf(grafana, '/etc/grafana/provisioning/datasources')).not.toBeNull();
  });

  it("checks PostgreSQL's health as the user and database the fleet connects with", () => {
    const postgres = serviceOf('postgres');
    const test = postgres.healthcheck?.test as string[];
    expect(test[test.indexOf('-U') + 1]).toBe(String(postgres.environment?.POSTGRES_USER));
    expect(test[test.indexOf('-d') + 1]).toBe(String(postgres.environment?.POSTGRES_DB));
  });

  it('sends traces to the Jaeger service on the OTLP/HTTP port it enables', () => {
    const jaeger = serviceOf('jaeger');
    expect(jaeger.environment?.COLLECTOR_OTLP_ENABLED).toBe('true');
    for (const name of ['api', 'model-worker', 'tool-worker', 'simulator', 'migrate']) {
      const endpoint = new URL(String(serviceOf(name).environment?.OTEL_EXPORTER_OTLP_ENDPOINT));
      expect(endpoint.hostname, name).toBe('jaeger');
      expect(endpoint.port, name).toBe('4318');
    }
  });
});
