// Finds the first field of a Messages body the real API would refuse as unknown, with the path the
// real 400 names ("<path>: Extra inputs are not permitted"; tagged unions put the block's type in
// the path: "messages.65.content.1.tool_use.text", "tools.3.custom.input_examples"). Shapes that
// are wrong in other ways are left to the validator; this only looks at field names.
import {
  BETA_MESSAGES_REQUEST_FIELDS,
  CONTENT_BLOCK_FIELDS,
  CUSTOM_TOOL_FIELDS,
  extraFieldMessage,
  findExtraField,
  MESSAGES_REQUEST_FIELDS,
  METADATA_FIELDS,
  TOOL_CHOICE_FIELDS,
} from './request-fields.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The 400 message for the first unknown field, or null when every field is known. `topLevelFields`:
 * the endpoint's own (default the Messages ones; count_tokens takes fewer). */
export function checkExtraFields({
  body,
  acceptsBetaFields,
  topLevelFields = MESSAGES_REQUEST_FIELDS,
}: {
  body: Record<string, unknown>;
  acceptsBetaFields: boolean;
  topLevelFields?: ReadonlySet<string>;
}): string | null {
  const topLevel = Object.keys(body).find((key) => !topLevelFields.has(key) && !(acceptsBetaFields && BETA_MESSAGES_REQUEST_FIELDS.has(key)));
  if (topLevel !== undefined) return extraFieldMessage({ path: topLevel });

  if (isRecord(body.metadata)) {
    const extra = findExtraField({ record: body.metadata, allowed: METADATA_FIELDS });
    if (extra !== undefined) return extraFieldMessage({ path: `metadata.${extra}` });
  }
  if (isRecord(body.tool_choice) && typeof body.tool_choice.type === 'string') {
    const extra = findExtraField({ record: body.tool_choice, allowed: TOOL_CHOICE_FIELDS });
    if (extra !== undefined) return extraFieldMessage({ path: `tool_choice.${body.tool_choice.type}.${extra}` });
  }
  if (Array.isArray(body.tools)) {
    for (const [index, tool] of body.tools.entries()) {
      const isCustomTool = isRecord(tool) && (tool.type === undefined || tool.type === null || tool.type === 'custom');
      if (!isCustomTool) continue;
      const extra = findExtraField({ record: tool, allowed: CUSTOM_TOOL_FIELDS });
      if (extra !== undefined) return extraFieldMessage({ path: `tools.${index}.custom.${extra}` });
    }
  }
  if (Array.isArray(body.system)) {
    for (const [index, block] of body.system.entries()) {
      const problem = blockProblem(block, `system.${index}`, false);
      if (problem) return problem;
    }
  }
  if (Array.isArray(body.messages)) {
    for (const [messageIndex, message] of body.messages.entries()) {
      if (!isRecord(message)) continue;
      const extra = findExtraField({ record: message, allowed: new Set(['role', 'content']) });
      if (extra !== undefined) return extraFieldMessage({ path: `messages.${messageIndex}.${extra}` });
      if (!Array.isArray(message.content)) continue;
      for (const [blockIndex, block] of message.content.entries()) {
        const problem = blockProblem(block, `messages.${messageIndex}.content.${blockIndex}`, true);
        if (problem) return problem;
      }
    }
  }
  return null;
}

function blockProblem(block: unknown, path: string, tagged: boolean): string | null {
  if (!isRecord(block) || typeof block.type !== 'string') return null;
  const allowed = CONTENT_BLOCK_FIELDS[block.type];
  if (!allowed) return null;
  const extra = findExtraField({ record: block, allowed });
  if (extra !== undefined) return extraFieldMessage({ path: tagged ? `${path}.${block.type}.${extra}` : `${path}.${extra}` });
  if (block.type === 'tool_result' && Array.isArray(block.content)) {
    for (const [index, inner] of block.content.entries()) {
      const problem = blockProblem(inner, `${path}.tool_result.content.${index}`, true);
      if (problem) return problem;
    }
  }
  return null;
}
