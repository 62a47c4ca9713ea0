// Renders a kustomization with the kubectl on PATH (its built-in kustomize), as `kubectl apply -k`
// would, into plain objects.
import { spawnSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';

export interface KubernetesDocument {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** The kubectl client version line, or null when kubectl is not installed. */
export function kubectlVersion(): string | null {
  const result = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) return null;
  return result.stdout.split('\n')[0] ?? 'kubectl';
}

/** `kubectl kustomize DIRECTORY`, parsed; throws with kustomize's message when it fails. */
export function renderKustomization(directory: string): KubernetesDocument[] {
  const result = spawnSync('kubectl', ['kustomize', directory], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`kubectl kustomize ${directory} failed:\n${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`rendered YAML of ${directory} does not parse: ${document.errors[0]?.message}`);
      return document.toJS() as KubernetesDocument | null;
    })
    .filter((document): document is KubernetesDocument => document !== null);
}
