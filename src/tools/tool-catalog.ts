// moved: shim until bench/run.ts, src/tools/run-tool-job.ts are migrated (split into tool-definitions.ts and tool-implementations.ts; scripts/move-modules.mjs rewrites the imports)
export * from './tool-definitions.js';
export { toolImplementations as toolDefinitions } from './tool-implementations.js';
