// The agent a run was made for (RunRecord.agent, docs/agents.md), kept with its history so the run
// view names the same agent once its Redis keys are gone.
//
// Every row archived before this column existed is the site builder's: it was the only agent. The
// default writes that into those rows without rewriting the table (PostgreSQL 11+), and stays for
// an archive worker of the previous release, still running during a rolling upgrade, whose runs
// are the builder's too.
import type { MigrationBuilder } from 'node-pg-migrate';

export function up(pgm: MigrationBuilder): void {
  pgm.sql(`ALTER TABLE runs ADD COLUMN agent text NOT NULL DEFAULT 'site-builder';`);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`ALTER TABLE runs DROP COLUMN agent;`);
}
