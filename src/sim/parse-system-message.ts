// Mid-conversation system messages (docs build-with-claude/mid-conversation-system-messages): a
// `role: "system"` message inside `messages`, its content a string or text blocks, no beta header,
// on the models the catalog marks (`midConversationSystemMessages`); other models answer 400 "role
// 'system' is not supported on this model" (the API's wording as clients quote it). Placement, each
// else a 400: not first; right after a user turn (tool_result turns included) or an assistant turn
// ending in a server tool result; before an assistant turn or at the end; never between a tool_use
// and its tool_result. Consecutive system messages are one section.
// Tool changes (same page, beta `mid-conversation-tool-changes-2026-07-01`): `tool_addition` /
// `tool_removal` blocks in a system message, `tool: {type: 'tool_reference', name}` naming a tool
// declared in the top-level `tools` ("Referencing an undeclared name → 400"). Without the beta the
// block type is unknown, answered in the validator's wording for a tag outside a union ("Input tag
// '…' found using 'type' does not match any of the expected tags: …", as cache-breakpoints.ts has
// it); on a model without `midConversationToolChanges`, 400 "tool_addition/tool_removal is not
// supported on this model" (the wording a proxy observed for claude-sonnet-5). MCP references are
// refused as unknown tags: the simulator serves no MCP servers to reference.
import type { ModelDescription } from './model-catalog.js';

export const MID_CONVERSATION_TOOL_CHANGES_BETA = 'mid-conversation-tool-changes-2026-07-01';

export class SystemMessageInvalid extends Error {}

export interface ToolChange {
  kind: 'addition' | 'removal';
  name: string;
}

/** One system message of `messages`, read. */
export interface SystemMessage {
  /** Its index in the request's `messages`. */
  index: number;
  /** Its text blocks joined; '' when it only changes tools. */
  text: string;
  toolChanges: ToolChange[];
}

const TOOL_CHANGE_TYPES: Readonly<Record<string, ToolChange['kind']>> = { tool_addition: 'addition', tool_removal: 'removal' };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function reject(message: string): never {
  throw new SystemMessageInvalid(message);
}

/** Whether an assistant message ends in a server tool's result (e.g. `web_search_tool_result`). */
function endsInServerToolResult(message: Record<string, unknown>): boolean {
  const content = Array.isArray(message.content) ? message.content : [];
  const last: unknown = content[content.length - 1];
  return isRecord(last) && typeof last.type === 'string' && last.type.endsWith('_tool_result') && last.type !== 'tool_result';
}

function hasToolUse(message: unknown): boolean {
  return isRecord(message) && Array.isArray(message.content) && message.content.some((block) => isRecord(block) && block.type === 'tool_use');
}

/** The role of a raw message, or undefined past either end. */
function roleAt(messages: readonly unknown[], index: number): unknown {
  const message = messages[index];
  return isRecord(message) ? message.role : undefined;
}

/** Reads the system message at `index` of the raw `messages`, checking its model, place and content. */
export function parseSystemMessage({
  messages,
  index,
  model,
  betas,
  declaredTools,
}: {
  messages: readonly unknown[];
  index: number;
  model: ModelDescription;
  betas: readonly string[];
  declaredTools: readonly string[];
}): SystemMessage {
  const path = `messages.${index}`;
  if (!model.midConversationSystemMessages) reject(`${path}: role 'system' is not supported on this model`);
  if (index === 0) reject(`${path}: a system message cannot be the first message`);

  // A run of system messages is one section: its first member must follow a user turn.
  let before = index - 1;
  while (roleAt(messages, before) === 'system') before -= 1;
  const previous = messages[before];
  if (isRecord(previous) && previous.role === 'assistant' && !endsInServerToolResult(previous)) {
    reject(
      hasToolUse(previous) && roleAt(messages, index + 1) === 'user'
        ? `${path}: a system message cannot come between a tool_use and its tool_result`
        : `${path}: a system message must follow a user turn`,
    );
  }
  let after = index + 1;
  while (roleAt(messages, after) === 'system') after += 1;
  if (after < messages.length && roleAt(messages, after) !== 'assistant') {
    reject(`${path}: a system message must precede an assistant turn or end the messages`);
  }

  const message = messages[index] as Record<string, unknown>;
  const content = message.content;
  if (typeof content === 'string') {
    if (content.trim() === '') reject(`${path}.content: text content must contain non-whitespace text`);
    return { index, text: content, toolChanges: [] };
  }
  if (!Array.isArray(content) || content.length === 0) reject(`${path}: all messages must have non-empty content`);
  const texts: string[] = [];
  const toolChanges: ToolChange[] = [];
  content.forEach((block, blockIndex) => {
    const blockPath = `${path}.content.${blockIndex}`;
    const type = isRecord(block) ? block.type : undefined;
    const changeKind = typeof type === 'string' ? TOOL_CHANGE_TYPES[type] : undefined;
    const expectedTags = betas.includes(MID_CONVERSATION_TOOL_CHANGES_BETA) ? "'text', 'tool_addition', 'tool_removal'" : "'text'";
    if (isRecord(block) && type === 'text') {
      if (typeof block.text !== 'string' || block.text.trim() === '') reject(`${blockPath}.text: text content blocks must contain non-whitespace text`);
      texts.push(block.text);
      return;
    }
    if (!isRecord(block) || changeKind === undefined || !betas.includes(MID_CONVERSATION_TOOL_CHANGES_BETA)) {
      reject(`${blockPath}: Input tag '${String(type)}' found using 'type' does not match any of the expected tags: ${expectedTags}`);
    }
    if (!model.midConversationToolChanges) reject(`${blockPath}: tool_addition/tool_removal is not supported on this model`);
    const tool = block.tool;
    if (!isRecord(tool)) reject(`${blockPath}.tool: Field required`);
    if (tool.type !== 'tool_reference') {
      reject(`${blockPath}.tool: Input tag '${String(tool.type)}' found using 'type' does not match any of the expected tags: 'tool_reference'`);
    }
    if (typeof tool.name !== 'string') reject(`${blockPath}.tool.name: Field required`);
    if (!declaredTools.includes(tool.name)) reject(`${blockPath}.tool.name: Tool '${tool.name}' not found in the provided tools`);
    toolChanges.push({ kind: changeKind, name: tool.name });
  });
  return { index, text: texts.join('\n'), toolChanges };
}
