// Podman as `buildfleet experiment image` runs it on these machines: rootful, `runc` (crun refuses
// the machines' hybrid cgroups), the cgroupfs manager (no systemd to delegate to), events to a file
// (no journald), and every container on the host network (loopback only; no bridge is set up).
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** The global flags every podman command gets here. */
export const PODMAN_FLAGS = ['--runtime', 'runc', '--cgroup-manager=cgroupfs', '--events-backend=file'] as const;

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end and collects its output; never throws on a non-zero exit. */
export function runCommand({
  program,
  args,
  input,
  timeoutMs = 600_000,
}: {
  program: string;
  args: readonly string[];
  input?: string;
  timeoutMs?: number;
}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(program, args, { maxBuffer: 256 * 1024 * 1024, timeout: timeoutMs, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(new Error(`${program} ${args.join(' ')}: ${error.message}`));
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** A podman command; resolves with its result whatever the exit code. */
export function podman(args: readonly string[], options: { input?: string; timeoutMs?: number } = {}): Promise<CommandResult> {
  return runCommand({ program: 'podman', args: [...PODMAN_FLAGS, ...args], ...options });
}

/** A podman command that must succeed; its stdout, trimmed. */
export async function podmanOk(args: readonly string[], options: { input?: string; timeoutMs?: number } = {}): Promise<string> {
  const result = await podman(args, options);
  if (result.code !== 0) throw new Error(`podman ${args.join(' ')} exited ${result.code}: ${(result.stderr || result.stdout).trim().slice(-2000)}`);
  return result.stdout.trim();
}

/** Runs a long command (a build) with its output streamed to `log` line by line; resolves with the exit code. */
export function streamCommand({ program, args, log }: { program: string; args: readonly string[]; log: (line: string) => void }): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) log(line);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', reject);
    child.once('close', (code) => {
      if (buffered) log(buffered);
      resolve(code ?? 1);
    });
  });
}

async function hasProgram(name: string): Promise<boolean> {
  return (await runCommand({ program: 'sh', args: ['-c', `command -v ${name}`] })).code === 0;
}

const CONTAINERS_CONF = '/etc/containers/containers.conf';

/** Installs podman, runc and debootstrap when missing (root only), and turns podman's default
 * ulimits off: its default raises RLIMIT_NOFILE past what this machine's sandbox allows, and every
 * container start fails with "setrlimit … operation not permitted". Returns what it did, for the
 * output. */
export async function preparePodman({ log }: { log: (line: string) => void }): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('experiment image runs rootful podman and debootstrap: run it as root');
  const missing: string[] = [];
  for (const [program, pkg] of [
    ['podman', 'podman'],
    ['runc', 'runc'],
    ['debootstrap', 'debootstrap'],
  ] as const) {
    if (!(await hasProgram(program))) missing.push(pkg);
  }
  if (missing.length > 0) {
    log(`setup: apt-get install -y ${missing.join(' ')}`);
    const update = await runCommand({ program: 'apt-get', args: ['update'] });
    if (update.code !== 0) throw new Error(`apt-get update failed: ${update.stderr.trim().slice(-1000)}`);
    const install = await runCommand({ program: 'apt-get', args: ['install', '-y', '--no-install-recommends', ...missing] });
    if (install.code !== 0) throw new Error(`apt-get install ${missing.join(' ')} failed: ${install.stderr.trim().slice(-1000)}`);
  }
  const text = existsSync(CONTAINERS_CONF) ? readFileSync(CONTAINERS_CONF, 'utf8') : '';
  if (!/^\s*default_ulimits\s*=/m.test(text)) {
    writeFileSync(CONTAINERS_CONF, withEmptyDefaultUlimits(text));
    log(`setup: set default_ulimits = [] under [containers] in ${CONTAINERS_CONF} (podman's default nofile limit is refused here)`);
  }
}

/** containers.conf text with `default_ulimits = []` added to its [containers] table (created if absent). */
export function withEmptyDefaultUlimits(text: string): string {
  const line = 'default_ulimits = []';
  const header = /^\[containers\][^\n]*$/m.exec(text);
  if (!header) return `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}[containers]\n${line}\n`;
  const at = header.index + header[0].length;
  return `${text.slice(0, at)}\n${line}${text.slice(at)}`;
}
