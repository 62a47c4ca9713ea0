// BUILDFLEET_TOOL_OUTPUT_MODES: per-tool overrides of the contract's default mode, written as
// `fetch_image=degrade,fetch_url_live=fail_closed`. Parsed (and refused with the bad entry named)
// when the config loads, so a typo stops the process instead of silently keeping a default.
// In the domain because config.ts parses it at boot and must not import the tools.
import { isToolName, type ToolName } from './profile.js';

/** fail_closed: the run stops (failed, invalid_tool_output). degrade: the run continues in
 * skip_writes safe mode, with a last-known-good value where one is cached. */
export const TOOL_OUTPUT_MODES = ['fail_closed', 'degrade'] as const;
export type ToolOutputMode = (typeof TOOL_OUTPUT_MODES)[number];

export type ToolOutputModeOverrides = Partial<Record<ToolName, ToolOutputMode>>;

export class ToolOutputModesError extends Error {
  readonly code = 'tool_output_modes_invalid';
}

/** Parses the variable's value ('' means no overrides); throws ToolOutputModesError. */
export function parseToolOutputModes(value: string): ToolOutputModeOverrides {
  const overrides: ToolOutputModeOverrides = {};
  for (const entry of value.split(',')) {
    if (entry.trim() === '') continue;
    const [tool, mode, extra] = entry.split('=').map((part) => part.trim());
    if (!tool || !mode || extra !== undefined) throw new ToolOutputModesError(`"${entry.trim()}" is not tool=mode`);
    if (!isToolName(tool)) throw new ToolOutputModesError(`"${tool}" is not a tool name`);
    if (!(TOOL_OUTPUT_MODES as readonly string[]).includes(mode)) {
      throw new ToolOutputModesError(`"${mode}" (for ${tool}) is not one of ${TOOL_OUTPUT_MODES.join(', ')}`);
    }
    overrides[tool] = mode as ToolOutputMode;
  }
  return overrides;
}

const cache = new Map<string, ToolOutputModeOverrides>();

/** The mode in force for a tool: the override when configured, else the contract's default. */
export function resolveToolOutputMode({ tool, defaultMode, configured }: { tool: string; defaultMode: ToolOutputMode; configured: string }): ToolOutputMode {
  let overrides = cache.get(configured);
  if (!overrides) {
    overrides = parseToolOutputModes(configured);
    cache.set(configured, overrides);
  }
  return (overrides as Partial<Record<string, ToolOutputMode>>)[tool] ?? defaultMode;
}
