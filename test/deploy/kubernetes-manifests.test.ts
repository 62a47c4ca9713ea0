// k8s/ renders with kustomize (the default and every overlay), every rendered object validates
// offline against the Kubernetes (and KEDA / Prometheus Operator CRD) schemas with no unknown
// field, and the fleet's deployment rules hold: probes, grace periods, security context,
// disruption budgets, KEDA on the BullMQ wait lists; overlays/queue-shards gives every queue shard
// workers, budgets and ScaledObjects of its own, none selecting another shard's pods; overlays/trial
// brings everything a one-node trial needs (Redis, PostgreSQL, the simulator, an Ingress) and no
// KEDA nor ReadWriteMany claim.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { PROJECT_ROOT } from '../../src/cli/spawn-role.js';
import { configSchema, loadConfig } from '../../src/config.js';
import { createKeySpace } from '../../src/engine/index.js';
import { queuePrefixOf } from '../../src/domain/queue-shards.js';
import { QUEUE_NAMES } from '../../src/jobs/job-catalog.js';
import { kubectlVersion, renderKustomization, type KubernetesDocument } from './support/render-kustomization.js';
import { findUnknownFields, schemaErrors } from './support/kubernetes-schemas.js';

const KUSTOMIZATIONS = ['k8s', 'k8s/overlays/hpa', 'k8s/overlays/simulator', 'k8s/overlays/prometheus-operator', 'k8s/overlays/queue-shards', 'k8s/overlays/trial'] as const;
const TRIAL_OVERLAY = 'k8s/overlays/trial';
const QUEUE_SHARDS_OVERLAY = 'k8s/overlays/queue-shards';
const QUEUE_SHARD_LABEL = 'buildfleet/queue-shard';
const kubectl = kubectlVersion();
if (!kubectl) console.warn('[deploy] kubectl is not installed: skipping the k8s/ rendering checks (install kubectl to run them)');

const labelOf = (document: KubernetesDocument) => `${document.kind}/${document.metadata.name}`;
const selects = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([key, value]) => labels[key] === value);

interface Container {
  name: string;
  image: string;
  args?: string[];
  ports?: Array<{ name: string; containerPort: number }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string; optional?: boolean } }>;
  env?: Array<{ name: string; value?: string }>;
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean; capabilities?: { drop?: string[] } };
}

interface DeploymentShape {
  spec: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
      spec: { terminationGracePeriodSeconds?: number; securityContext?: { runAsNonRoot?: boolean; runAsUser?: number }; containers: Container[] };
    };
  };
}

const byKind = (documents: KubernetesDocument[], kind: string) => documents.filter((document) => document.kind === kind);
const named = (documents: KubernetesDocument[], kind: string, name: string) =>
  documents.find((document) => document.kind === kind && document.metadata.name === name);

function portNumber(container: Container, port: string | number): number | undefined {
  return typeof port === 'number' ? port : container.ports?.find((candidate) => candidate.name === port)?.containerPort;
}

describe.skipIf(!kubectl)('k8s/ (kustomize)', () => {
  const rendered = new Map<string, KubernetesDocument[]>();
  const renderedOf = (directory: string) => {
    if (!rendered.has(directory)) rendered.set(directory, renderKustomization(join(PROJECT_ROOT, directory)));
    return rendered.get(directory) ?? [];
  };

  it.each(KUSTOMIZATIONS)('%s renders and every object validates against its schema', async (directory) => {
    const documents = renderedOf(directory);
    expect(documents.length).toBeGreaterThan(5);
    const problems: string[] = [];
    for (const document of documents) {
      for (const error of await schemaErrors(document)) problems.push(`${labelOf(document)}: ${error}`);
      if (document.kind !== 'Namespace') expect(document.metadata.namespace, labelOf(document)).toBe('buildfleet');
    }
    expect(problems).toEqual([]);
  });

  it('no rendered object has a field its kind does not define (kubectl --validate=strict)', () => {
    const all = KUSTOMIZATIONS.flatMap((directory) => renderedOf(directory).map((document) => ({ directory, document })));
    const unique = [...new Map(all.map((entry) => [`${labelOf(entry.document)}:${JSON.stringify(entry.document)}`, entry])).values()];
    const problems = findUnknownFields(
      unique.map((entry) => entry.document),
      labelOf,
    );
    expect(problems).toEqual([]);
  });

  it('the unknown-field check catches a misspelt field', () => {
    const deployment = structuredClone(named(renderedOf('k8s'), 'Deployment', 'model-worker')) as KubernetesDocument & DeploymentShape;
    const container = deployment.spec.template.spec.containers[0] as unknown as Record<string, unknown>;
    container.readinesProbe = container.readinessProbe;
    const problems = findUnknownFields([deployment], labelOf);
    expect(problems.join('\n')).toMatch(/readinesProbe/);
  });

  it('the schema check catches a wrong type', async () => {
    const deployment = structuredClone(named(renderedOf('k8s'), 'Deployment', 'api')) as KubernetesDocument & DeploymentShape;
    (deployment.spec as unknown as Record<string, unknown>).replicas = 'two';
    expect((await schemaErrors(deployment)).join('\n')).toMatch(/replicas/);
  });

  it.each(KUSTOMIZATIONS)('%s: every fleet Deployment has probes, resources, a grace period past the shutdown timeout and a locked-down container', (directory) => {
    const documents = renderedOf(directory);
    const configMap = byKind(documents, 'ConfigMap')[0] as unknown as { data: Record<string, string>; metadata: { name: string } };
    const config = loadConfig(configMap.data);
    const deployments = byKind(documents, 'Deployment') as Array<KubernetesDocument & DeploymentShape>;
    expect(deployments.map((deployment) => deployment.metadata.name)).toEqual(expect.arrayContaining(['api', 'model-worker', 'tool-worker']));
    const autoscaled = new Set(
      [...byKind(documents, 'ScaledObject'), ...byKind(documents, 'HorizontalPodAutoscaler')].map(
        (scaler) => (scaler as unknown as { spec: { scaleTargetRef: { name: string } } }).spec.scaleTargetRef.name,
      ),
    );
    const images = new Set<string>();
    for (const deployment of deployments) {
      const label = labelOf(deployment);
      const pod = deployment.spec.template.spec;
      expect(Object.entries(deployment.spec.selector.matchLabels).every(([key, value]) => deployment.spec.template.metadata.labels[key] === value), label).toBe(true);
      expect(pod.terminationGracePeriodSeconds, label).toBeGreaterThanOrEqual(Math.ceil(config.BUILDFLEET_SHUTDOWN_TIMEOUT_MS / 1000) + 5);
      expect(pod.securityContext?.runAsNonRoot, label).toBe(true);
      expect(pod.securityContext?.runAsUser, label).toBeGreaterThan(0);
      const annotations = deployment.spec.template.metadata.annotations ?? {};
      expect(annotations['prometheus.io/scrape'], label).toBe('true');
      expect(annotations['prometheus.io/port'], label).toBe(String(config.BUILDFLEET_METRICS_PORT));
      for (const container of pod.containers) {
        images.add(container.image);
        expect(container.securityContext, label).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
        expect(container.resources?.requests, label).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
        expect(container.resources?.limits, label).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
        expect(container.envFrom?.some((source) => source.configMapRef?.name === configMap.metadata.name), label).toBe(true);
        expect(container.readinessProbe?.httpGet?.path, label).toBe('/readyz');
        expect(container.livenessProbe?.httpGet?.path, label).toBe('/healthz');
        const readinessPort = portNumber(container, container.readinessProbe?.httpGet?.port ?? -1);
        // The role, whatever the name (a queue shard's workers are model-worker-shard-1 and so on).
        const role = deployment.spec.template.metadata.labels['app.kubernetes.io/component'];
        if (role === 'api') expect(readinessPort, label).toBe(config.BUILDFLEET_API_PORT);
        else expect(readinessPort, label).toBe(config.BUILDFLEET_METRICS_PORT);
        expect(container.ports?.find((port) => port.name === 'metrics')?.containerPort, label).toBe(config.BUILDFLEET_METRICS_PORT);
        if (role === 'model-worker' || role === 'tool-worker') {
          expect(container.args, label).toEqual(['worker', role.replace('-worker', '')]);
          // The autoscaler owns the replica count; a fixed one would be reset on every apply. Without
          // one (the trial) the manifest says how many.
          if (autoscaled.has(deployment.metadata.name)) expect(deployment.spec.replicas, label).toBeUndefined();
          else expect(deployment.spec.replicas, label).toBeGreaterThan(0);
        }
      }
    }
    expect(images.size, `one image for every role, got ${[...images].join(', ')}`).toBe(1);
    expect([...images][0]).toMatch(/:[\w.-]+$/);
    expect(config.BUILDFLEET_API_HOST).toBe('0.0.0.0');
    expect(config.BUILDFLEET_METRICS_HOST).toBe('0.0.0.0');
  });

  it('the ConfigMap sets only variables of the config schema, and no Secret is rendered (issue #18)', () => {
    for (const directory of KUSTOMIZATIONS) {
      const documents = renderedOf(directory);
      const data = (byKind(documents, 'ConfigMap')[0] as unknown as { data: Record<string, string> }).data;
      const unknown = Object.keys(data).filter((key) => !(key in configSchema.shape) && !/^(OTEL_|NODE_)/.test(key));
      expect(unknown, directory).toEqual([]);
      // Secrets are the operator's: a rendered one, even without data, would make `kubectl apply -k`
      // remove the keys the operator applied (docs/deploy.md#secrets).
      expect(byKind(documents, 'Secret').map(labelOf), directory).toEqual([]);
    }
  });

  it('every Pod reads the operator’s buildfleet-secrets as optional, so the fleet starts before it exists', () => {
    for (const directory of KUSTOMIZATIONS) {
      for (const deployment of byKind(renderedOf(directory), 'Deployment') as Array<KubernetesDocument & DeploymentShape>) {
        const spec = deployment.spec.template.spec as DeploymentShape['spec']['template']['spec'] & { initContainers?: Container[] };
        for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
          for (const source of container.envFrom ?? []) {
            if (source.secretRef) expect(source.secretRef, `${directory} ${labelOf(deployment)} ${container.name}`).toEqual({ name: 'buildfleet-secrets', optional: true });
          }
        }
      }
    }
  });

  it('the roles that read BUILDFLEET_WEBHOOK_SECRET (the API accepts webhook runs, the tool workers sign) take it from buildfleet-secrets, never the ConfigMap', () => {
    for (const directory of KUSTOMIZATIONS) {
      const documents = renderedOf(directory);
      const config = (byKind(documents, 'ConfigMap')[0] as unknown as { data: Record<string, string> }).data;
      expect(config.BUILDFLEET_WEBHOOK_SECRET, directory).toBeUndefined();
      for (const name of ['api', 'tool-worker']) {
        const deployment = named(documents, 'Deployment', name) as unknown as KubernetesDocument & DeploymentShape;
        const container = deployment.spec.template.spec.containers[0]!;
        // envFrom passes every key of the Secret, BUILDFLEET_WEBHOOK_SECRET among them once the
        // operator adds it (docs/deploy.md#secrets); an `env` entry of the same name would win
        // over it, so none may shadow it.
        expect(container.envFrom, `${directory} ${name}`).toContainEqual({ secretRef: { name: 'buildfleet-secrets', optional: true } });
        expect(container.env?.map((variable) => variable.name) ?? [], `${directory} ${name}`).not.toContain('BUILDFLEET_WEBHOOK_SECRET');
      }
    }
  });

  it('serves the run console on an origin of its own: the API pods’ console port, behind a Service of its own (issue #18)', () => {
    const documents = renderedOf('k8s');
    const config = loadConfig((byKind(documents, 'ConfigMap')[0] as unknown as { data: Record<string, string> }).data);
    const consoleOrigin = new URL(config.BUILDFLEET_CONSOLE_PUBLIC_URL ?? '').origin;
    expect(consoleOrigin).not.toBe(new URL(config.BUILDFLEET_PUBLIC_URL ?? '').origin);
    expect(consoleOrigin).not.toBe(new URL(config.BUILDFLEET_SITES_PUBLIC_URL ?? '').origin);
    expect(config.BUILDFLEET_CONSOLE_HOST).toBe('0.0.0.0');
    const api = named(documents, 'Deployment', 'api') as KubernetesDocument & DeploymentShape;
    const container = api.spec.template.spec.containers[0]!;
    expect(portNumber(container, 'console')).toBe(config.BUILDFLEET_CONSOLE_PORT);
    const consoleService = named(documents, 'Service', 'console') as unknown as { spec: { selector: Record<string, string>; ports: Array<{ targetPort: string | number }> } };
    expect(consoleService.spec.ports.map((port) => port.targetPort)).toEqual(['console']);
    expect(Object.entries(consoleService.spec.selector).every(([key, value]) => api.spec.template.metadata.labels[key] === value)).toBe(true);
    for (const other of ['api', 'sites']) {
      const service = named(documents, 'Service', other) as unknown as { spec: { ports: Array<{ targetPort: string | number }> } };
      expect(service.spec.ports.map((port) => port.targetPort), other).not.toContain('console');
    }
  });

  it('a PodDisruptionBudget covers every fleet Deployment, and a headless Service exposes every metrics port', () => {
    const documents = renderedOf('k8s');
    const budgets = byKind(documents, 'PodDisruptionBudget') as unknown as Array<{ spec: { selector: { matchLabels: Record<string, string> } } }>;
    for (const deployment of byKind(documents, 'Deployment') as Array<KubernetesDocument & DeploymentShape>) {
      const labels = deployment.spec.template.metadata.labels;
      const covered = budgets.some((budget) => Object.entries(budget.spec.selector.matchLabels).every(([key, value]) => labels[key] === value));
      expect(covered, labelOf(deployment)).toBe(true);
    }
    const metrics = named(documents, 'Service', 'buildfleet-metrics') as unknown as { spec: { clusterIP: string; selector: Record<string, string> } };
    expect(metrics.spec.clusterIP).toBe('None');
    for (const deployment of byKind(documents, 'Deployment') as Array<KubernetesDocument & DeploymentShape>) {
      const labels = deployment.spec.template.metadata.labels;
      expect(Object.entries(metrics.spec.selector).every(([key, value]) => labels[key] === value), labelOf(deployment)).toBe(true);
    }
  });

  it.each(KUSTOMIZATIONS)('%s: no Deployment selects another’s pods, and exactly one PodDisruptionBudget covers each', (directory) => {
    const documents = renderedOf(directory);
    const deployments = byKind(documents, 'Deployment') as Array<KubernetesDocument & DeploymentShape>;
    const budgets = byKind(documents, 'PodDisruptionBudget') as unknown as Array<KubernetesDocument & { spec: { selector: { matchLabels: Record<string, string> } } }>;
    for (const deployment of deployments) {
      const labels = deployment.spec.template.metadata.labels;
      const owners = deployments.filter((candidate) => selects(candidate.spec.selector.matchLabels, labels)).map(labelOf);
      expect(owners, labelOf(deployment)).toEqual([labelOf(deployment)]);
      // The simulator overlay's simulator is a trial's stand-in for the model API: no budget.
      if (labels['app.kubernetes.io/component'] === 'simulator') continue;
      const covering = budgets.filter((budget) => selects(budget.spec.selector.matchLabels, labels)).map(labelOf);
      expect(covering, labelOf(deployment)).toHaveLength(1);
    }
  });

  it('serves sites on an origin of their own: the API pods’ sites port, behind a Service of its own', () => {
    const documents = renderedOf('k8s');
    const config = loadConfig((byKind(documents, 'ConfigMap')[0] as unknown as { data: Record<string, string> }).data);
    expect(new URL(config.BUILDFLEET_SITES_PUBLIC_URL ?? '').origin).not.toBe(new URL(config.BUILDFLEET_PUBLIC_URL ?? '').origin);
    expect(config.BUILDFLEET_SITES_HOST).toBe('0.0.0.0');
    const api = named(documents, 'Deployment', 'api') as KubernetesDocument & DeploymentShape;
    const container = api.spec.template.spec.containers[0]!;
    expect(portNumber(container, 'sites')).toBe(config.BUILDFLEET_SITES_PORT);
    const sites = named(documents, 'Service', 'sites') as unknown as { spec: { selector: Record<string, string>; ports: Array<{ targetPort: string | number }> } };
    expect(sites.spec.ports.map((port) => port.targetPort)).toEqual(['sites']);
    expect(Object.entries(sites.spec.selector).every(([key, value]) => api.spec.template.metadata.labels[key] === value)).toBe(true);
    // The API's Service does not route to the sites port.
    const apiService = named(documents, 'Service', 'api') as unknown as { spec: { ports: Array<{ targetPort: string | number }> } };
    expect(apiService.spec.ports.map((port) => port.targetPort)).not.toContain('sites');
  });

  it('mounts the sites volume: tool workers write it, the API reads it, from any node (issue #21; the one-node trial’s from its node)', () => {
    for (const directory of KUSTOMIZATIONS) {
      const documents = renderedOf(directory);
      const config = loadConfig((byKind(documents, 'ConfigMap')[0] as unknown as { data: Record<string, string> }).data);
      const claim = named(documents, 'PersistentVolumeClaim', 'sites') as unknown as { spec: { accessModes: string[] } } | undefined;
      expect(claim?.spec.accessModes, directory).toEqual([directory === TRIAL_OVERLAY ? 'ReadWriteOnce' : 'ReadWriteMany']);
      for (const [name, readOnly] of [['api', true], ['tool-worker', false]] as const) {
        const deployment = named(documents, 'Deployment', name) as unknown as {
          spec: { template: { spec: { securityContext?: { fsGroup?: number }; volumes?: Array<{ name: string; persistentVolumeClaim?: { claimName: string } }>; containers: Array<{ volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }> }> } } };
        };
        const pod = deployment.spec.template.spec;
        const volume = pod.volumes?.find((candidate) => candidate.persistentVolumeClaim?.claimName === 'sites');
        expect(volume, `${directory} ${name}`).toBeDefined();
        const mount = pod.containers[0]?.volumeMounts?.find((candidate) => candidate.name === volume?.name);
        expect(mount?.mountPath, `${directory} ${name}`).toBe(config.BUILDFLEET_SITES_DIR);
        expect(mount?.readOnly ?? false, `${directory} ${name}`).toBe(readOnly);
        expect(pod.securityContext?.fsGroup, `${directory} ${name}`).toBe(1000);
      }
    }
  });

  it('migrates the history schema before every fleet process starts, from the same config and Secret, where DATABASE_URL belongs (issue #21)', () => {
    for (const directory of KUSTOMIZATIONS) {
      const documents = renderedOf(directory);
      const config = (byKind(documents, 'ConfigMap')[0] as unknown as { data: Record<string, string> }).data;
      // A URL with a password is a secret: never in the ConfigMap.
      expect(config.DATABASE_URL, directory).toBeUndefined();
      expect(Number(config.BUILDFLEET_RUN_RETENTION_SECONDS), directory).toBe(loadConfig(config).BUILDFLEET_RUN_RETENTION_SECONDS);
      for (const name of ['api', 'model-worker', 'tool-worker']) {
        const deployment = named(documents, 'Deployment', name) as unknown as { spec: { template: { spec: { initContainers?: Container[]; containers: Container[] } } } };
        const pod = deployment.spec.template.spec;
        const migrate = pod.initContainers?.find((container) => container.name === 'migrate');
        expect(migrate, `${directory} ${name}`).toBeDefined();
        expect(migrate?.args, `${directory} ${name}`).toEqual(['migrate', '--if-configured']);
        expect(migrate?.image, `${directory} ${name}`).toBe(pod.containers[0]?.image);
        expect(migrate?.envFrom, `${directory} ${name}`).toEqual(pod.containers[0]?.envFrom);
        expect(migrate?.envFrom?.some((source) => source.secretRef?.name === 'buildfleet-secrets'), `${directory} ${name}`).toBe(true);
        expect(migrate?.securityContext, `${directory} ${name}`).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
        expect(migrate?.resources?.limits, `${directory} ${name}`).toBeDefined();
      }
    }
  });

  it('KEDA scales each worker Deployment on its BullMQ wait list', () => {
    const documents = renderedOf('k8s');
    const configMap = byKind(documents, 'ConfigMap')[0] as unknown as { data: Record<string, string> };
    const keys = createKeySpace(loadConfig(configMap.data).BUILDFLEET_PREFIX);
    const scaledObjects = byKind(documents, 'ScaledObject') as unknown as Array<{
      metadata: { name: string };
      spec: { scaleTargetRef: { name: string }; triggers: Array<{ type: string; metadata: Record<string, string> }> };
    }>;
    for (const [role, queue] of [
      ['model-worker', QUEUE_NAMES.model],
      ['tool-worker', QUEUE_NAMES.tool],
    ] as const) {
      const scaled = scaledObjects.find((candidate) => candidate.spec.scaleTargetRef.name === role);
      expect(scaled, role).toBeDefined();
      expect(named(documents, 'Deployment', role), role).toBeDefined();
      const trigger = scaled?.spec.triggers.find((candidate) => candidate.type === 'redis');
      // BullMQ 5: the waiting jobs of a queue are the list `<prefix>:<queue>:wait`.
      expect(trigger?.metadata.listName, role).toBe(`${queuePrefixOf(keys.prefix, 0)}:${queue}:wait`);
      expect(Number(trigger?.metadata.listLength), role).toBeGreaterThan(0);
    }
    // The HPA overlays replace KEDA rather than fight it over the same Deployment.
    for (const directory of ['k8s/overlays/hpa', 'k8s/overlays/simulator']) {
      expect(byKind(renderedOf(directory), 'ScaledObject'), directory).toEqual([]);
      expect(byKind(renderedOf(directory), 'HorizontalPodAutoscaler').length, directory).toBe(2);
    }
  });

  it.each(['k8s/overlays/simulator', TRIAL_OVERLAY])('%s points the workers at the simulator Service', (directory) => {
    const documents = renderedOf(directory);
    const data = (byKind(documents, 'ConfigMap')[0] as unknown as { data: Record<string, string> }).data;
    const service = named(documents, 'Service', 'simulator') as unknown as { spec: { ports: Array<{ port: number }> } };
    expect(data.BUILDFLEET_SIMULATOR_URL).toBe(`http://simulator:${service.spec.ports[0]?.port}`);
    const simulator = named(documents, 'Deployment', 'simulator') as KubernetesDocument & DeploymentShape;
    expect(simulator.spec.template.spec.containers[0]?.args).toEqual(['sim', '--port', String(service.spec.ports[0]?.port), '--host', '0.0.0.0']);
  });

  it('the simulator overlay runs a PostgreSQL for run history whose password kustomize never applies (issue #21)', () => {
    const documents = renderedOf('k8s/overlays/simulator');
    const statefulSet = named(documents, 'StatefulSet', 'postgres') as unknown as {
      spec: { serviceName: string; template: { metadata: { labels: Record<string, string> }; spec: { containers: Array<{ env: Array<{ name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }> }> } }; volumeClaimTemplates: unknown[] };
    };
    expect(statefulSet).toBeDefined();
    const container = statefulSet.spec.template.spec.containers[0]!;
    const password = container.env.find((variable) => variable.name === 'POSTGRES_PASSWORD');
    expect(password?.valueFrom?.secretKeyRef).toEqual({ name: 'buildfleet-postgres', key: 'password' });
    // The operator's Secret: not among what kustomize applies, so re-applying cannot replace it.
    expect(named(documents, 'Secret', 'buildfleet-postgres')).toBeUndefined();
    expect(statefulSet.spec.volumeClaimTemplates).toHaveLength(1);
    const service = named(documents, 'Service', 'postgres') as unknown as { spec: { selector: Record<string, string>; ports: Array<{ port: number }> } };
    expect(service.spec.ports[0]?.port).toBe(5432);
    for (const [label, value] of Object.entries(service.spec.selector)) expect(statefulSet.spec.template.metadata.labels[label]).toBe(value);
    // The default (production) fleet brings none: PostgreSQL is external there, like Redis.
    expect(named(renderedOf('k8s'), 'StatefulSet', 'postgres')).toBeUndefined();
  });

  describe('overlays/queue-shards (issue #20)', () => {
    const SHARDS = 3;
    type Worker = KubernetesDocument & DeploymentShape;
    const documents = () => renderedOf(QUEUE_SHARDS_OVERLAY);
    const configData = () => (byKind(documents(), 'ConfigMap')[0] as unknown as { data: Record<string, string> }).data;
    const workers = (component: string) =>
      (byKind(documents(), 'Deployment') as Worker[]).filter((deployment) => deployment.spec.template.metadata.labels['app.kubernetes.io/component'] === component);
    /** What the worker process loads: the ConfigMap, then the container's own env, which wins. */
    const configOf = (deployment: Worker) => {
      const container = deployment.spec.template.spec.containers[0]!;
      return loadConfig({ ...configData(), ...Object.fromEntries((container.env ?? []).map((variable) => [variable.name, variable.value ?? ''])) });
    };

    it('tells every process the shard count through the one ConfigMap, never shadowed by a container’s env', () => {
      expect(loadConfig(configData()).BUILDFLEET_QUEUE_SHARDS).toBe(SHARDS);
      const configMapName = byKind(documents(), 'ConfigMap')[0]?.metadata.name;
      for (const deployment of byKind(documents(), 'Deployment') as Worker[]) {
        for (const container of deployment.spec.template.spec.containers) {
          expect(container.envFrom?.some((source) => source.configMapRef?.name === configMapName), labelOf(deployment)).toBe(true);
          expect(container.env?.map((variable) => variable.name) ?? [], labelOf(deployment)).not.toContain('BUILDFLEET_QUEUE_SHARDS');
        }
      }
      // The default fleet stays on one shard, and its worker selectors carry no shard label, so
      // applying k8s/ over an existing fleet changes no immutable selector.
      const defaultFleet = renderedOf('k8s');
      expect(loadConfig((byKind(defaultFleet, 'ConfigMap')[0] as unknown as { data: Record<string, string> }).data).BUILDFLEET_QUEUE_SHARDS).toBe(1);
      for (const deployment of byKind(defaultFleet, 'Deployment') as Worker[]) expect(deployment.spec.selector.matchLabels[QUEUE_SHARD_LABEL], labelOf(deployment)).toBeUndefined();
    });

    it('runs model and tool workers for every shard, each Deployment under its own name, labelled and selected by the shard it serves', () => {
      const names = new Set<string>();
      for (const component of ['model-worker', 'tool-worker']) {
        const deployments = workers(component);
        const served = deployments.map((deployment) => {
          const shard = configOf(deployment).BUILDFLEET_QUEUE_SHARD;
          const label = String(shard);
          expect(deployment.metadata.labels?.[QUEUE_SHARD_LABEL], labelOf(deployment)).toBe(label);
          expect(deployment.spec.selector.matchLabels[QUEUE_SHARD_LABEL], labelOf(deployment)).toBe(label);
          expect(deployment.spec.template.metadata.labels[QUEUE_SHARD_LABEL], labelOf(deployment)).toBe(label);
          expect(deployment.metadata.name, labelOf(deployment)).toBe(shard === 0 ? component : `${component}-shard-${shard}`);
          expect(deployment.spec.template.spec.containers[0]?.args, labelOf(deployment)).toEqual(['worker', component.replace('-worker', '')]);
          names.add(deployment.metadata.name);
          return shard;
        });
        expect(served.sort(), component).toEqual([0, 1, 2]);
      }
      expect(names.size).toBe(2 * SHARDS);
      // The API is shared: one Deployment, no shard of its own.
      const api = named(documents(), 'Deployment', 'api') as Worker;
      expect(api.spec.template.metadata.labels[QUEUE_SHARD_LABEL]).toBeUndefined();
    });

    it('gives each shard’s workers their own disruption budgets, selecting that shard’s pods only', () => {
      const budgets = byKind(documents(), 'PodDisruptionBudget') as unknown as Array<KubernetesDocument & { spec: { selector: { matchLabels: Record<string, string> } } }>;
      for (const component of ['model-worker', 'tool-worker']) {
        for (const deployment of workers(component)) {
          const covering = budgets.filter((budget) => selects(budget.spec.selector.matchLabels, deployment.spec.template.metadata.labels));
          expect(covering.map(labelOf), labelOf(deployment)).toEqual([`PodDisruptionBudget/${deployment.metadata.name}`]);
          expect(covering[0]?.spec.selector.matchLabels[QUEUE_SHARD_LABEL], labelOf(deployment)).toBe(String(configOf(deployment).BUILDFLEET_QUEUE_SHARD));
        }
      }
    });

    it('scales each shard’s workers with a KEDA ScaledObject of their own, on that shard’s wait list', () => {
      const keys = createKeySpace(loadConfig(configData()).BUILDFLEET_PREFIX);
      const scaledObjects = byKind(documents(), 'ScaledObject') as unknown as Array<
        KubernetesDocument & { spec: { scaleTargetRef: { name: string }; triggers: Array<{ type: string; metadata: Record<string, string> }> } }
      >;
      expect(new Set(scaledObjects.map((scaled) => scaled.metadata.name)).size).toBe(scaledObjects.length);
      expect(scaledObjects).toHaveLength(2 * SHARDS);
      for (const [component, queue] of [
        ['model-worker', QUEUE_NAMES.model],
        ['tool-worker', QUEUE_NAMES.tool],
      ] as const) {
        for (const deployment of workers(component)) {
          const scaling = scaledObjects.filter((scaled) => scaled.spec.scaleTargetRef.name === deployment.metadata.name);
          expect(scaling, labelOf(deployment)).toHaveLength(1);
          const trigger = scaling[0]?.spec.triggers.find((candidate) => candidate.type === 'redis');
          // BullMQ 5's wait list of the queue under the shard's prefix (src/domain/queue-shards.ts).
          expect(trigger?.metadata.listName, labelOf(deployment)).toBe(`${queuePrefixOf(keys.prefix, configOf(deployment).BUILDFLEET_QUEUE_SHARD)}:${queue}:wait`);
        }
      }
    });

    it('mounts the sites volume in every shard’s tool workers (issue #21)', () => {
      const sitesDirectory = loadConfig(configData()).BUILDFLEET_SITES_DIR;
      for (const deployment of workers('tool-worker')) {
        const pod = deployment.spec.template.spec as unknown as {
          volumes?: Array<{ name: string; persistentVolumeClaim?: { claimName: string } }>;
          containers: Array<{ volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }> }>;
        };
        const volume = pod.volumes?.find((candidate) => candidate.persistentVolumeClaim?.claimName === 'sites');
        expect(volume, labelOf(deployment)).toBeDefined();
        const mount = pod.containers[0]?.volumeMounts?.find((candidate) => candidate.name === volume?.name);
        expect(mount?.mountPath, labelOf(deployment)).toBe(sitesDirectory);
        expect(mount?.readOnly ?? false, labelOf(deployment)).toBe(false);
      }
      // One claim for the whole fleet: the shards' kustomizations reference it, never copy it.
      expect(byKind(documents(), 'PersistentVolumeClaim').map(labelOf)).toEqual(['PersistentVolumeClaim/sites']);
    });
  });

  describe('overlays/trial (issue #34)', () => {
    type Claimed = KubernetesDocument & { spec: { accessModes?: string[]; volumeClaimTemplates?: Array<{ spec: { accessModes: string[] } }> } };
    interface ServiceShape {
      spec: { selector: Record<string, string>; ports: Array<{ name?: string; port: number; targetPort: string | number }> };
    }
    interface StatefulSetShape {
      spec: { replicas: number; template: { metadata: { labels: Record<string, string> }; spec: { containers: Container[] } }; volumeClaimTemplates: Array<{ spec: { accessModes: string[] } }> };
    }
    const documents = () => renderedOf(TRIAL_OVERLAY);
    const configData = () => (byKind(documents(), 'ConfigMap')[0] as unknown as { data: Record<string, string> }).data;

    it('needs no KEDA: no KEDA object, no autoscaler, one replica of each role', () => {
      expect(documents().filter((document) => document.apiVersion.startsWith('keda.sh/')).map(labelOf)).toEqual([]);
      expect(byKind(documents(), 'HorizontalPodAutoscaler').map(labelOf)).toEqual([]);
      for (const name of ['api', 'model-worker', 'tool-worker', 'simulator']) {
        expect((named(documents(), 'Deployment', name) as KubernetesDocument & DeploymentShape).spec.replicas, name).toBe(1);
      }
    });

    it('brings the Redis its config’s REDIS_URL names: a Service of the namespace on that port, over one durable server', () => {
      const redisUrl = new URL(loadConfig(configData()).REDIS_URL ?? '');
      // <service>, <service>.<namespace> or <service>.<namespace>.svc.cluster.local
      const [serviceName, namespace = 'buildfleet', ...rest] = redisUrl.hostname.split('.');
      expect(rest.length === 0 || rest.join('.') === 'svc.cluster.local', redisUrl.hostname).toBe(true);
      const service = named(documents(), 'Service', serviceName ?? '') as (KubernetesDocument & ServiceShape) | undefined;
      expect(service, redisUrl.hostname).toBeDefined();
      expect(service?.metadata.namespace).toBe(namespace);
      const port = service?.spec.ports.find((candidate) => candidate.port === Number(redisUrl.port || 6379));
      expect(port, 'a Service port for the URL’s').toBeDefined();
      const servers = (byKind(documents(), 'StatefulSet') as Array<KubernetesDocument & StatefulSetShape>).filter((statefulSet) =>
        selects(service?.spec.selector ?? {}, statefulSet.spec.template.metadata.labels),
      );
      expect(servers.map(labelOf)).toEqual(['StatefulSet/redis']);
      const redis = servers[0]!;
      expect(redis.spec.replicas).toBe(1);
      const container = redis.spec.template.spec.containers[0]!;
      expect(portNumber(container, port?.targetPort ?? -1)).toBe(6379);
      // As the fleet needs Redis (docs/deploy.md#redis): AOF every second, never an evicted key.
      const args = (container.args ?? []).join(' ');
      expect(args).toContain('--appendonly yes');
      expect(args).toContain('--appendfsync everysec');
      expect(args).toContain('--maxmemory-policy noeviction');
      expect(redis.spec.volumeClaimTemplates.map((template) => template.spec.accessModes)).toEqual([['ReadWriteOnce']]);
    });

    it('claims no ReadWriteMany volume, and runs the simulator and a PostgreSQL for history', () => {
      const claims = [
        ...(byKind(documents(), 'PersistentVolumeClaim') as Claimed[]).map((claim) => ({ label: labelOf(claim), modes: claim.spec.accessModes ?? [] })),
        ...(byKind(documents(), 'StatefulSet') as Claimed[]).flatMap((statefulSet) =>
          (statefulSet.spec.volumeClaimTemplates ?? []).map((template) => ({ label: labelOf(statefulSet), modes: template.spec.accessModes })),
        ),
      ];
      expect(claims.length).toBeGreaterThanOrEqual(3);
      expect(claims.filter((claim) => claim.modes.includes('ReadWriteMany'))).toEqual([]);
      expect(named(documents(), 'StatefulSet', 'postgres')).toBeDefined();
      expect(named(documents(), 'Deployment', 'simulator')).toBeDefined();
    });

    it('has a way in: an Ingress giving the API, the sites and the console a host each, on their Services’ ports', () => {
      const ingresses = byKind(documents(), 'Ingress') as unknown as Array<
        KubernetesDocument & { spec: { rules: Array<{ host: string; http: { paths: Array<{ backend: { service: { name: string; port: { name: string } } } }> } }> } }
      >;
      expect(ingresses).toHaveLength(1);
      const rules = ingresses[0]!.spec.rules;
      const backends = rules.flatMap((rule) => rule.http.paths.map((path) => ({ host: rule.host, service: path.backend.service })));
      expect(backends.map((backend) => backend.service.name).sort()).toEqual(['api', 'console', 'sites']);
      expect(new Set(rules.map((rule) => rule.host)).size).toBe(3);
      for (const { service } of backends) {
        const target = named(documents(), 'Service', service.name) as unknown as ServiceShape;
        expect(target.spec.ports.map((port) => port.name), service.name).toContain(service.port.name);
      }
    });

    it('lets the tool workers reach the sites origin at its public URL, through a loopback sidecar to the sites Service', () => {
      const config = loadConfig(configData());
      const sitesUrl = new URL(config.BUILDFLEET_SITES_PUBLIC_URL ?? '');
      expect(sitesUrl.hostname).toBe('localhost');
      const toolWorker = named(documents(), 'Deployment', 'tool-worker') as unknown as KubernetesDocument & {
        spec: { template: { spec: { initContainers: Array<Container & { restartPolicy?: string; command?: string[] }>; containers: Container[] } } };
      };
      const sidecar = toolWorker.spec.template.spec.initContainers.find((container) => container.name === 'sites-loopback');
      expect(sidecar?.restartPolicy).toBe('Always');
      expect(sidecar?.image).toBe(toolWorker.spec.template.spec.containers[0]?.image);
      const script = sidecar?.command?.join(' ') ?? '';
      const sitesService = named(documents(), 'Service', 'sites') as unknown as ServiceShape;
      expect(script).toContain(`net.connect(${sitesService.spec.ports[0]?.port}, 'sites')`);
      expect(script).toContain(sitesUrl.port);
      expect(sidecar?.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    });
  });

  it('the ServiceMonitor selects the metrics Service by its labels and port', () => {
    const documents = renderedOf('k8s/overlays/prometheus-operator');
    const monitor = byKind(documents, 'ServiceMonitor')[0] as unknown as {
      spec: { selector: { matchLabels: Record<string, string> }; endpoints: Array<{ port: string }> };
    };
    const service = named(documents, 'Service', 'buildfleet-metrics') as unknown as {
      metadata: { labels: Record<string, string> };
      spec: { ports: Array<{ name: string }> };
    };
    expect(Object.entries(monitor.spec.selector.matchLabels).every(([key, value]) => service.metadata.labels[key] === value)).toBe(true);
    expect(service.spec.ports.map((port) => port.name)).toContain(monitor.spec.endpoints[0]?.port);
    // Plain clusters apply k8s/ without the Prometheus Operator's CRDs.
    expect(byKind(renderedOf('k8s'), 'ServiceMonitor')).toEqual([]);
  });
});

describe('k8s/ source files', () => {
  it('every kustomization names the buildfleet namespace', () => {
    for (const directory of [...KUSTOMIZATIONS, 'k8s/base/workers', `${QUEUE_SHARDS_OVERLAY}/shard-1`, `${QUEUE_SHARDS_OVERLAY}/shard-2`]) {
      const kustomization = parseYaml(readFileSync(join(PROJECT_ROOT, directory, 'kustomization.yaml'), 'utf8')) as { namespace?: string };
      expect(kustomization.namespace, directory).toBe('buildfleet');
    }
  });
});
