// The provider a run's calls went through (RunRecord.provider, docs/providers.md), kept with its
// history so the run view answers the same provider once its Redis keys are gone.
//
// Every row archived before this column existed was made with `anthropic`: before providers
// existed every run called Claude through the Anthropic API (the implicit provider). The default
// writes that into those rows (a constant default fills existing rows without rewriting the table,
// PostgreSQL 11+), and stays: an archive worker of the previous release, still running while a
// rolling upgrade replaces it, inserts rows without the column, and those runs were made with
// `anthropic` too.
import type { MigrationBuilder } from 'node-pg-migrate';

export function up(pgm: MigrationBuilder): void {
  pgm.sql(`ALTER TABLE runs ADD COLUMN provider text NOT NULL DEFAULT 'anthropic';`);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`ALTER TABLE runs DROP COLUMN provider;`);
}
