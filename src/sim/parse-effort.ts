// `output_config.effort`, the GA effort parameter (docs build-with-claude/effort: `"output_config":
// {"effort": "low" | "medium" | "high" | "xhigh" | "max"}`, no beta header; "Setting `effort` to the
// model's default … produces exactly the same behavior as omitting" it). The levels each model takes
// and its default are in model-catalog.ts. The unknown-value message is pydantic's wording for a
// literal, like the API's other field errors; the two model refusals are not documented, and their
// wording here is an assumption.
import type { EffortLevel, ModelDescription } from './model-catalog.js';

const EFFORT_LEVELS: readonly EffortLevel[] = ['low', 'medium', 'high', 'xhigh', 'max'];

export class EffortInvalid extends Error {}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The effort the request runs at: its own, else the model's default (null on a model without effort). */
export function parseEffort({ outputConfig, model }: { outputConfig: unknown; model: ModelDescription }): EffortLevel | null {
  if (outputConfig === undefined || outputConfig === null) return model.defaultEffort;
  if (!isRecord(outputConfig)) throw new EffortInvalid('output_config: Input should be a valid dictionary');
  const effort = outputConfig.effort;
  if (effort === undefined || effort === null) return model.defaultEffort;
  if (typeof effort !== 'string' || !(EFFORT_LEVELS as readonly string[]).includes(effort)) {
    throw new EffortInvalid("output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'");
  }
  const level = effort as EffortLevel;
  // Haiku 4.5 and Sonnet 4.5 take no effort at all (effort page: "Not supported").
  if (model.effortLevels.length === 0) throw new EffortInvalid('output_config.effort: effort is not supported on this model');
  if (!model.effortLevels.includes(level)) {
    throw new EffortInvalid(`output_config.effort: '${level}' is not supported on this model. Supported levels: ${model.effortLevels.join(', ')}`);
  }
  return level;
}
