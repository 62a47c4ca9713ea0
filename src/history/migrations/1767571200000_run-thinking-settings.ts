// How a run thought (RunRecord.thinking / effort / thinkingDisplay, decided at submit by
// src/domain/resolve-run-model-settings.ts), kept with its history so the run view answers the
// same settings once its Redis keys are gone. thinking_budget_tokens stays: the manual budget.
//
// `thinking` is required of every row archived from now on (a NOT VALID check: nothing archived
// before this fleet's first release needs a value made up for it).
import type { MigrationBuilder } from 'node-pg-migrate';

export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE runs
      -- off | manual | adaptive | between_tools
      ADD COLUMN thinking text,
      -- output_config.effort of every call; null: not sent (the model's default).
      ADD COLUMN effort text,
      -- The display asked for (updates) or the model's default; null: no up-front thinking.
      ADD COLUMN thinking_display text,
      ADD CONSTRAINT runs_thinking_present CHECK (thinking IN ('off', 'manual', 'adaptive', 'between_tools')) NOT VALID,
      ADD CONSTRAINT runs_effort_level CHECK (effort IN ('low', 'medium', 'high', 'xhigh', 'max')) NOT VALID,
      ADD CONSTRAINT runs_thinking_display_mode CHECK (thinking_display IN ('summarized', 'omitted', 'updates')) NOT VALID;
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`ALTER TABLE runs DROP COLUMN thinking, DROP COLUMN effort, DROP COLUMN thinking_display;`);
}
