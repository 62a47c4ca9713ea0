// Strict argument validation with zod schemas (src/domain/tool-input-schemas.ts). zod can fill in
// defaults, strip unknown keys of a non-strict object, or transform values; any of these would
// run a call the model did not write. So after a successful parse the output is compared with
// the input, and any difference is a refusal.
import type { ZodType } from 'zod';
import { isPlainObject } from './is-plain-object.js';
import { schemaInvalidReason, unknownToolReason } from './parse-reasons.js';
import type { ArgumentValidator } from './parse-types.js';

type PathSegment = string | number;
type Difference = { kind: 'added' | 'removed' | 'changed'; path: PathSegment[] };

const MAX_COMPARE_DEPTH = 256;

export function createZodValidator(schemas: Record<string, ZodType>): ArgumentValidator {
  const byName = new Map(Object.entries(schemas));

  return (name, toolArguments) => {
    const schema = byName.get(name);
    if (!schema) return { ok: false, reason: unknownToolReason(name) };
    if (!isPlainObject(toolArguments)) return { ok: false, reason: schemaInvalidReason([], 'must be object') };

    const parsed = schema.safeParse(toolArguments);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      if (!issue) return { ok: false, reason: schemaInvalidReason([], 'invalid') };
      const path = issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
      if (issue.code === 'unrecognized_keys') {
        return { ok: false, reason: schemaInvalidReason([...path, issue.keys[0] ?? ''], 'unknown_field') };
      }
      if (issue.code === 'invalid_type') {
        const message = isMissingAt(toolArguments, path) ? 'missing_required' : `must be ${issue.expected}`;
        return { ok: false, reason: schemaInvalidReason(path, message) };
      }
      return { ok: false, reason: schemaInvalidReason(path, issue.message) };
    }

    const difference = firstDifference(toolArguments, parsed.data, [], 0);
    if (difference === null && isPlainObject(parsed.data)) return { ok: true, value: parsed.data };
    switch (difference?.kind) {
      case 'added':
        return { ok: false, reason: 'schema_invalid:defaults_filled' };
      case 'removed':
        return { ok: false, reason: schemaInvalidReason(difference.path, 'unknown_field') };
      default:
        return { ok: false, reason: schemaInvalidReason(difference?.path ?? [], 'value_transformed') };
    }
  };
}

/** The key at the end of `path` is absent from its parent object in the input. */
function isMissingAt(input: unknown, path: readonly PathSegment[]): boolean {
  let parent: unknown = input;
  for (const segment of path.slice(0, -1)) {
    if (!isPlainObject(parent) && !Array.isArray(parent)) return false;
    parent = (parent as Record<string, unknown>)[segment];
  }
  const last = path[path.length - 1];
  return last !== undefined && isPlainObject(parent) && !Object.hasOwn(parent, last);
}

/** The first place where `output` is not the same JSON as `input`; key order does not matter. */
function firstDifference(input: unknown, output: unknown, path: PathSegment[], depth: number): Difference | null {
  if (depth > MAX_COMPARE_DEPTH) return { kind: 'changed', path };
  if (Array.isArray(input) || Array.isArray(output)) {
    if (!Array.isArray(input) || !Array.isArray(output) || input.length !== output.length) {
      return { kind: 'changed', path };
    }
    for (let index = 0; index < input.length; index += 1) {
      const difference = firstDifference(input[index], output[index], [...path, index], depth + 1);
      if (difference) return difference;
    }
    return null;
  }
  if (isPlainObject(input) || isPlainObject(output)) {
    if (!isPlainObject(input) || !isPlainObject(output)) return { kind: 'changed', path };
    if (Object.getPrototypeOf(output) !== Object.prototype && Object.getPrototypeOf(output) !== null) {
      return { kind: 'changed', path }; // a Date, Map or class instance from a transform
    }
    for (const key of Object.keys(output)) {
      if (!Object.hasOwn(input, key)) return { kind: 'added', path: [...path, key] };
    }
    for (const key of Object.keys(input)) {
      if (!Object.hasOwn(output, key)) return { kind: 'removed', path: [...path, key] };
      const difference = firstDifference(input[key], output[key], [...path, key], depth + 1);
      if (difference) return difference;
    }
    return null;
  }
  return input === output ? null : { kind: 'changed', path };
}
