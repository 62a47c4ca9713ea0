import { describe, expect, it } from 'vitest';
import { ToolError } from '../tool-types.js';
import { workspaceWriteError } from './write-workspace-file.js';

describe('workspaceWriteError', () => {
  it('treats a written or superseded file as success', () => {
    expect(workspaceWriteError({ outcome: 'ok', path: 'a.html', bytes: 1 })).toBeNull();
    expect(workspaceWriteError({ outcome: 'stale', path: 'theme.css', bytes: 1 })).toBeNull();
  });

  it('turns every outcome that wrote nothing into the ToolError of the same code', () => {
    for (const outcome of ['file_too_large', 'workspace_file_limit', 'workspace_too_large', 'killswitch_read_only', 'safe_mode_skip_writes', 'run_ended'] as const) {
      const error = workspaceWriteError({ outcome, path: 'a.html', bytes: 10 });
      expect(ToolError.isInstance(error), outcome).toBe(true);
      expect(error?.code).toBe(outcome);
    }
  });
});
