// Builds the project as the Docker build stage does (`npm run build`: `tsc -p tsconfig.build.json`,
// then the run console's assets), into a temporary directory laid out like the image: dist/,
// package.json, node_modules beside them.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../src/cli/spawn-role.js';

export interface CompiledBuild {
  root: string;
  /** dist/src/cli.js, the image's ENTRYPOINT. */
  cli: string;
  remove(): void;
}

export function compileBuild(): CompiledBuild {
  const root = mkdtempSync(join(tmpdir(), 'buildfleet-image-'));
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', join(root, 'dist')], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed:\n${result.stdout}${result.stderr}`);
  const assets = spawnSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'build-console.mjs'), '--quiet', '--out', join(root, 'dist', 'console')], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  if (assets.status !== 0) throw new Error(`node scripts/build-console.mjs failed:\n${assets.stdout}${assets.stderr}`);
  // The image copies package.json (for "type": "module") and node_modules next to dist/.
  writeFileSync(join(root, 'package.json'), JSON.stringify({ type: 'module' }));
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  return { root, cli: join(root, 'dist', 'src', 'cli.js'), remove: () => rmSync(root, { recursive: true, force: true }) };
}

export interface CompiledRole {
  name: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the first output line matching the pattern. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code once the process has exited by itself. */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends the signal; resolves with the exit code and how long the exit took. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; elapsedMs: number }>;
}

/** Runs `node dist/src/cli.js ARGS` with exactly the given environment, as a container would. */
export function startCompiledRole(input: { name: string; build: CompiledBuild; args: string[]; env: Record<string, string> }): CompiledRole {
  const child = spawn(process.execPath, [input.build.cli, ...input.args], {
    cwd: input.build.root,
    env: input.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiters = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const waiter of waiters) waiter();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    name: input.name,
    child,
    output: () => output,
    waitForLine(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = output.split('\n').map((line) => line.match(pattern)).find(Boolean);
          if (!match) return false;
          cleanup();
          resolve(match);
          return true;
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${input.name} did not print ${pattern} within ${timeoutMs} ms. Output:\n${output.slice(-4000)}`));
        }, timeoutMs);
        const onExit = () => {
          cleanup();
          reject(new Error(`${input.name} exited before printing ${pattern}. Output:\n${output.slice(-4000)}`));
        };
        const waiter = () => void check();
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(waiter);
          child.off('exit', onExit);
        };
        waiters.add(waiter);
        child.once('exit', onExit);
        check();
      });
    },
    exited: () => exited,
    async stop(signal = 'SIGTERM') {
      const started = Date.now();
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const { code, signal: exitSignal } = await exited;
      return { code, signal: exitSignal, elapsedMs: Date.now() - started };
    },
  };
}
