// The builder policy's decision for one turn, before scenarios and text-call drift shape it into
// an API response.

export interface PlannedToolCall {
  name: string;
  input: Record<string, unknown>;
}

export type PlannedTurn =
  | {
      kind: 'tool-calls';
      /** Text said before the calls; null when tool_choice forbids it or on a continuation. */
      preface: string | null;
      calls: PlannedToolCall[];
    }
  | {
      kind: 'final-answer';
      /** Always three paragraphs, so `multi_block_text` can split them into three blocks. */
      paragraphs: [string, string, string];
    };
