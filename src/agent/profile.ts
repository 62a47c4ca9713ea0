// moved: shim until bench/run.ts is migrated
export * from '../domain/profile.js';
