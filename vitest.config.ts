import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests start worker processes; two cores do not want more files at once.
    maxWorkers: 2,
    minWorkers: 1,
    reporters: ['default'],
    // node-pg-migrate imports each migration file by URL; outside vite's pipeline Node cannot load
    // the TypeScript migrations (src/history/migrations/), inside it (inlined) it can.
    server: { deps: { inline: ['node-pg-migrate'] } },
  },
});
