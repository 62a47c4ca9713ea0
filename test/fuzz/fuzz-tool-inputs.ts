// Random and mutated inputs through every tool's input schema (the same zod schemas the model's
// tool calls are validated with): safeParse must always answer, and parse may only throw a
// ZodError. Inputs are drawn from each tool's JSON Schema (right names, wrong and right types)
// and from arbitrary JSON.
import { z } from 'zod';
import { ALL_TOOLS } from '../../src/domain/profile.js';
import { anthropicToolsFor } from '../../src/tools/tool-definitions.js';
import { toolImplementations } from '../../src/tools/tool-implementations.js';
import { FuzzRandom, randomJson, randomString } from './fuzz-random.js';

export interface ToolInputFuzzReport {
  inputs: number;
  accepted: number;
  rejected: number;
  /** Inputs whose validation threw something other than a ZodError, with the tool and message. */
  crashes: string[];
}

interface PropertySchema {
  type?: string;
  enum?: unknown[];
  items?: PropertySchema;
  properties?: Record<string, PropertySchema>;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}

/** A value shaped like the property's schema, or deliberately not. */
function valueFor(random: FuzzRandom, schema: PropertySchema | undefined, depth = 0): unknown {
  if (!schema || random.chance(0.15) || depth > 3) return randomJson(random, 2);
  if (schema.enum && random.chance(0.7)) return random.pick(schema.enum);
  switch (schema.type) {
    case 'string': {
      const length = random.chance(0.5) ? random.int(40) : random.int((schema.maxLength ?? 100) + 2);
      return random.chance(0.3) ? randomString(random, 80) : random.chance(0.3) ? `#${random.int(0xffffff).toString(16).padStart(6, '0')}` : 'a'.repeat(length);
    }
    case 'integer':
    case 'number':
      return random.chance(0.6) ? random.int((schema.maximum ?? 100) + 2) - 1 : random.pick([1.5, -1, 1e308, Number.NaN, '5']);
    case 'boolean':
      return random.chance(0.8) ? random.chance(0.5) : 'true';
    case 'array':
      return Array.from({ length: random.int(random.chance(0.1) ? 30 : 4) }, () => valueFor(random, schema.items, depth + 1));
    case 'object': {
      const object: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) if (random.chance(0.85)) object[name] = valueFor(random, property, depth + 1);
      if (random.chance(0.1)) object[randomString(random, 10)] = randomJson(random, 1);
      return object;
    }
    default:
      return randomJson(random, 2);
  }
}

/** Validates `count` inputs spread over every tool. */
export function fuzzToolInputs({ count, seed }: { count: number; seed: number }): ToolInputFuzzReport {
  const random = new FuzzRandom(seed);
  const jsonSchemas = new Map(anthropicToolsFor(ALL_TOOLS).map((tool) => [tool.name, tool.input_schema as PropertySchema]));
  const report: ToolInputFuzzReport = { inputs: 0, accepted: 0, rejected: 0, crashes: [] };
  for (let index = 0; index < count; index += 1) {
    const name = random.pick(ALL_TOOLS);
    const schema = toolImplementations[name].inputSchema;
    const input = random.chance(0.8) ? valueFor(random, { ...jsonSchemas.get(name), type: 'object' }) : randomJson(random, 4);
    report.inputs += 1;
    try {
      const parsed = schema.safeParse(input);
      if (parsed.success) report.accepted += 1;
      else report.rejected += 1;
      try {
        schema.parse(input);
      } catch (error) {
        if (!(error instanceof z.ZodError)) throw error;
      }
    } catch (error) {
      report.crashes.push(`${name}: ${error instanceof Error ? error.message : String(error)} for ${JSON.stringify(input)?.slice(0, 200)}`);
    }
  }
  return report;
}
