// The Dockerfile's promises, read from its text (no Docker here): Node 24 slim, a build stage that
// compiles with tsconfig.build.json, production dependencies only in the final image, the
// unprivileged `node` user, compiled JavaScript as the entry point, a health check on the port
// every role serves.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/cli/spawn-role.js';

const dockerfile = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
const instructions = dockerfile
  .replace(/\\\n\s*/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));
const stages = instructions.reduce<string[][]>((all, line) => {
  if (/^FROM\s/i.test(line)) all.push([line]);
  else all.at(-1)?.push(line);
  return all;
}, []);
const finalStage = stages.at(-1) ?? [];

describe('Dockerfile', () => {
  it('is multi-stage on node:24-slim', () => {
    expect(dockerfile).toMatch(/ARG NODE_IMAGE=node:24-slim/);
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages.every((stage) => /^FROM \$\{NODE_IMAGE\}/.test(stage[0] ?? ''))).toBe(true);
  });

  it('compiles TypeScript in a build stage and installs only production dependencies for the final image', () => {
    expect(instructions.some((line) => /RUN npm run build/.test(line))).toBe(true);
    // The TypeScript, then the run console's browser bundle (dist/console/, issue #18), both into dist/.
    expect(JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).scripts.build).toBe('tsc -p tsconfig.build.json && node scripts/build-console.mjs');
    expect(instructions.some((line) => /npm ci --omit=dev/.test(line))).toBe(true);
    expect(finalStage.some((line) => /^RUN npm/.test(line))).toBe(false);
    expect(finalStage.filter((line) => /^COPY --from=/.test(line)).map((line) => line.split(/\s+/).at(-1))).toEqual(['./node_modules', './dist']);
  });

  it('runs compiled JavaScript as the node user, the role chosen by the command', () => {
    expect(finalStage).toContain('USER node');
    expect(finalStage).toContain('ENTRYPOINT ["node", "dist/src/cli.js"]');
    expect(finalStage).toContain('CMD ["api"]');
    expect(finalStage.some((line) => /BUILDFLEET_METRICS_HOST=0\.0\.0\.0/.test(line))).toBe(true);
  });

  it('checks health with node on the metrics port every role serves', () => {
    const healthcheck = finalStage.find((line) => line.startsWith('HEALTHCHECK')) ?? '';
    expect(healthcheck).toContain('CMD ["node", "-e"');
    expect(healthcheck).toContain('process.env.BUILDFLEET_METRICS_PORT');
    expect(healthcheck).toContain('/readyz');
  });

  it('keeps node_modules, dist, git and secrets out of the build context', () => {
    const ignored = readFileSync(join(PROJECT_ROOT, '.dockerignore'), 'utf8').split('\n').map((line) => line.trim());
    for (const entry of ['node_modules', 'dist', '.git', '.env', '.buildfleet']) expect(ignored, entry).toContain(entry);
  });
});
