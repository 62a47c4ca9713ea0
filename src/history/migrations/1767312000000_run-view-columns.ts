// The run as GET /v1/runs/:id shows it, so a finished run answers from history once its Redis keys
// are gone (docs/history.md#reading-runs): the fields of the run view the first schema did not
// keep, and run ids ordered byte by byte like the Redis run index the listing merges with.
//
// The required columns are checked with NOT VALID constraints: every row archived from now on must
// have them, while a row archived before (none in a released fleet: nothing archived before the read
// path existed) is left as it was and reads back as `stored_history_row_invalid`, naming the column,
// rather than with an invented value.
import type { MigrationBuilder } from 'node-pg-migrate';

export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE runs
      -- max_tokens of the run's last call (RunRecord.maxTokens: raised after a truncation).
      ADD COLUMN max_tokens integer,
      -- null: the run did not think.
      ADD COLUMN thinking_budget_tokens integer,
      -- The plan (todo_write) as it ended: [{id, title, phase, done}].
      ADD COLUMN todos jsonb,
      -- The workspace listing as it ended: [{path, bytes}], sorted by path.
      ADD COLUMN files jsonb,
      -- The open ask_user question ({toolUseId, question, turn}); null on almost every ended run.
      ADD COLUMN question jsonb,
      -- options.tokenBudget: the token budget of a run stored before budgets were (budget null).
      ADD COLUMN options_token_budget integer,
      -- set_meta's {title, description}: the published site's pages are served with it.
      ADD COLUMN meta jsonb,
      ADD CONSTRAINT runs_max_tokens_present CHECK (max_tokens IS NOT NULL AND max_tokens > 0) NOT VALID,
      ADD CONSTRAINT runs_thinking_budget_positive CHECK (thinking_budget_tokens > 0) NOT VALID,
      ADD CONSTRAINT runs_todos_present CHECK (jsonb_typeof(todos) = 'array') NOT VALID,
      ADD CONSTRAINT runs_files_present CHECK (jsonb_typeof(files) = 'array') NOT VALID,
      ADD CONSTRAINT runs_options_token_budget_positive CHECK (options_token_budget > 0) NOT VALID;

    -- The listing merges Redis's run index (members of equal score in byte order) with this table
    -- by (created_at, id): the two agree only when ids compare byte by byte here too, whatever the
    -- database's default collation. The indexes on id are rebuilt with it.
    ALTER TABLE runs ALTER COLUMN id TYPE text COLLATE "C";
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE runs ALTER COLUMN id TYPE text COLLATE "default";
    ALTER TABLE runs
      DROP COLUMN max_tokens, DROP COLUMN thinking_budget_tokens, DROP COLUMN todos, DROP COLUMN files,
      DROP COLUMN question, DROP COLUMN options_token_budget, DROP COLUMN meta;
  `);
}
