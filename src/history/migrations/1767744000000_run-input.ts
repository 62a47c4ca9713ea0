// The agent's input a run was created with (RunRecord.input, docs/agents.md#running-an-agent), kept
// with its history so a rerun of a run only history holds starts from the same input. Rows archived
// before the column existed hold null: those runs are the site builder's, whose input is its prompt,
// which the row keeps.
import type { MigrationBuilder } from 'node-pg-migrate';

export function up(pgm: MigrationBuilder): void {
  pgm.sql(`ALTER TABLE runs ADD COLUMN input jsonb;`);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`ALTER TABLE runs DROP COLUMN input;`);
}
