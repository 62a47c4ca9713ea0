// The model the suite's fleets run when a test names none: Claude Sonnet 4.6 (legacy, still
// served). Most tests assert the protocol of the generation that forces the plan with tool_choice
// and thinks with a manual budget; the fleet's own default is the current Sonnet
// (src/domain/model-catalog.ts DEFAULT_MODEL), and the current generation has tests of its own that
// name it (test/integration/model-generations-build.test.ts, thinking-runs.test.ts,
// tokenizer-estimates.test.ts, models-api-fleet.test.ts, …).
export const SUITE_MODEL = 'claude-sonnet-4-6';
