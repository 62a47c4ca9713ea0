// Validates Kubernetes objects offline against the Kubernetes API's own schemas. Built-in kinds
// come from `kubernetes-models` (the upstream OpenAPI definitions compiled to ajv validators);
// KEDA ScaledObjects and Prometheus Operator ServiceMonitors from `@kubernetes-models/keda` and
// `@kubernetes-models/prometheus-operator`, generated from those projects' CRDs. Those validators
// allow unknown fields, as the API schemas do, so findUnknownFields (below) adds what
// `kubectl apply --validate=strict` would reject: a field the kind does not have.
import { join } from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../../src/cli/spawn-role.js';
import type { KubernetesDocument } from './render-kustomization.js';

/** The kubernetes-models module of an apiVersion and kind (e.g. `kubernetes-models/apps/v1/Deployment`), or null. */
export function modelModuleOf(document: Pick<KubernetesDocument, 'apiVersion' | 'kind'>): string | null {
  const [group, version] = document.apiVersion.includes('/') ? document.apiVersion.split('/') : ['', document.apiVersion];
  if (!version || !/^[A-Z][A-Za-z0-9]*$/.test(document.kind)) return null;
  if (group === '') return `kubernetes-models/${version}/${document.kind}`;
  if (group === 'keda.sh') return `@kubernetes-models/keda/keda.sh/${version}/${document.kind}`;
  if (group === 'monitoring.coreos.com') return `@kubernetes-models/prometheus-operator/monitoring.coreos.com/${version}/${document.kind}`;
  return `kubernetes-models/${group}/${version}/${document.kind}`;
}

interface ModelClass {
  new (data: unknown): { validate(): void };
}

/** Schema errors of one document (empty when valid); a kind without a known schema is an error. */
export async function schemaErrors(document: KubernetesDocument): Promise<string[]> {
  const specifier = modelModuleOf(document);
  if (!specifier) return [`no schema for ${document.apiVersion} ${document.kind}`];
  let model: ModelClass | undefined;
  try {
    model = ((await import(specifier)) as Record<string, ModelClass>)[document.kind];
  } catch {
    model = undefined;
  }
  if (!model) return [`no schema for ${document.apiVersion} ${document.kind} (looked for ${specifier})`];
  try {
    new model(document).validate();
    return [];
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
}

/** Fields the kinds do not define, found by type-checking each document as an object literal of
 * the kind's interface: TypeScript's excess-property check, at any depth (it names the first
 * unknown field of a document; fix it and the next one shows). */
export function findUnknownFields(documents: KubernetesDocument[], labelOf: (document: KubernetesDocument) => string): string[] {
  const virtualFile = join(PROJECT_ROOT, 'test', 'deploy', '__rendered_manifests__.ts');
  const chunks: string[] = [];
  const owners: Array<{ fromLine: number; label: string }> = [];
  let lineCount = 0;
  const append = (text: string) => {
    chunks.push(text);
    lineCount += text.split('\n').length;
  };
  const typed = documents.map((document, index) => ({ document, index, specifier: modelModuleOf(document) }));
  for (const { document, index, specifier } of typed) {
    if (specifier) append(`import type { I${document.kind} as Kind${index} } from '${specifier}';`);
  }
  for (const { document, index, specifier } of typed) {
    if (!specifier) continue;
    owners.push({ fromLine: lineCount, label: labelOf(document) });
    append(`export const document${index}: Kind${index} = ${JSON.stringify(document, null, 1)};`);
  }
  const source = chunks.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const original = { getSourceFile: host.getSourceFile.bind(host), fileExists: host.fileExists.bind(host), readFile: host.readFile.bind(host) };
  host.fileExists = (fileName) => fileName === virtualFile || original.fileExists(fileName);
  host.readFile = (fileName) => (fileName === virtualFile ? source : original.readFile(fileName));
  host.getSourceFile = (fileName, languageVersion, ...rest) =>
    fileName === virtualFile ? ts.createSourceFile(fileName, source, languageVersion, true) : original.getSourceFile(fileName, languageVersion, ...rest);
  const program = ts.createProgram([virtualFile], options, host);
  const diagnostics = [...program.getSyntacticDiagnostics(), ...program.getSemanticDiagnostics()].filter(
    (diagnostic) => diagnostic.file?.fileName === virtualFile || diagnostic.file === undefined,
  );
  const sourceLines = source.split('\n');
  return diagnostics.map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const owner = [...owners].reverse().find((candidate) => candidate.fromLine <= line);
    return `${owner?.label ?? 'imports'}: ${message} (at ${(sourceLines[line] ?? '').trim()})`;
  });
}
