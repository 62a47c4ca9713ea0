// The run a run reruns (POST /v1/runs/:id/rerun: RunRecord.rerunOf), kept with its history so the
// run view answers the same link once its Redis keys are gone. Null on every other run, and on every
// row archived before this column existed (none of them was a rerun).
import type { MigrationBuilder } from 'node-pg-migrate';

export function up(pgm: MigrationBuilder): void {
  pgm.sql(`ALTER TABLE runs ADD COLUMN rerun_of text COLLATE "C";`);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`ALTER TABLE runs DROP COLUMN rerun_of;`);
}
