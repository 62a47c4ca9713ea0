// Runs one headless Chromium screenshot. Chromium forks helper processes, so it is started as
// its own process group and the whole group is killed on timeout or cancellation; killing only
// the parent would leave renderers running on the worker.
import { spawn } from 'node:child_process';

export interface HeadlessRunResult {
  outcome: 'exited' | 'timed_out' | 'aborted';
  exitCode: number | null;
  stderr: string;
}

const STDERR_KEEP_CHARACTERS = 2000;

/** Starts binary with args and waits for it to exit, time out, or be aborted. */
export async function runHeadlessChromium({
  binary,
  args,
  timeoutMs,
  signal,
}: {
  binary: string;
  args: string[];
  timeoutMs: number;
  signal: AbortSignal;
}): Promise<HeadlessRunResult> {
  if (signal.aborted) return { outcome: 'aborted', exitCode: null, stderr: '' };
  return new Promise((resolve) => {
    const child = spawn(binary, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let outcome: HeadlessRunResult['outcome'] = 'exited';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEEP_CHARACTERS);
    });
    const killGroup = (reason: HeadlessRunResult['outcome']) => {
      outcome = reason;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => killGroup('timed_out'), timeoutMs);
    const onAbort = () => killGroup('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    let settled = false;
    const finish = (exitCode: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve({ outcome, exitCode, stderr });
    };
    child.once('error', (error) => {
      stderr += String(error);
      finish(null);
    });
    // 'exit', not 'close': a leftover helper holding stderr open must not keep the call waiting.
    child.once('exit', (code) => {
      const finalOutcome = outcome;
      if (finalOutcome === 'exited' && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // No helpers left: the usual case.
        }
      }
      finish(code);
    });
  });
}
