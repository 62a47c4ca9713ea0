// The tools the model may call at the end of a transcript (docs build-with-claude/
// mid-conversation-system-messages, "mid-conversation tool changes"): every tool declared in the
// top-level `tools`, minus those declared with `defer_loading: true` ("withheld until a
// tool_addition surfaces it"), then each system message's `tool_addition` / `tool_removal` in
// message order. The top-level `tools` never change, so the cached prefix survives each change.
import type { SystemMessage } from './parse-system-message.js';

/** The names the model may call, in declaration order. */
export function availableTools({
  declared,
  deferred,
  systemMessages,
}: {
  declared: readonly string[];
  deferred: readonly string[];
  systemMessages: readonly SystemMessage[];
}): string[] {
  const available = new Set(declared.filter((name) => !deferred.includes(name)));
  for (const message of systemMessages) {
    for (const change of message.toolChanges) {
      if (change.kind === 'addition') available.add(change.name);
      else available.delete(change.name);
    }
  }
  return declared.filter((name) => available.has(name));
}
