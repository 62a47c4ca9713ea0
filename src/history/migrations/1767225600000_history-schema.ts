// The run history schema (docs/history.md). A migration is TypeScript so it compiles into dist/
// with the rest of src/ and ships in the image (which holds dist/ only); its body is plain SQL.
// Every key is natural (run id, run id + step, run id + tool_use_id, run id + stream id), so
// archiving the same run again conflicts on every row and writes nothing (ON CONFLICT DO NOTHING).
import type { MigrationBuilder } from 'node-pg-migrate';

export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE runs (
      id text PRIMARY KEY,
      tenant text NOT NULL,
      status text NOT NULL,
      error_code text,
      error_message text,
      model text NOT NULL,
      prompt text NOT NULL,
      phase text NOT NULL,
      turns integer NOT NULL CHECK (turns >= 0),
      input_tokens bigint NOT NULL CHECK (input_tokens >= 0),
      cache_write_5m_input_tokens bigint NOT NULL CHECK (cache_write_5m_input_tokens >= 0),
      cache_write_1h_input_tokens bigint NOT NULL CHECK (cache_write_1h_input_tokens >= 0),
      cache_read_input_tokens bigint NOT NULL CHECK (cache_read_input_tokens >= 0),
      output_tokens bigint NOT NULL CHECK (output_tokens >= 0),
      cost_micro_usd bigint NOT NULL CHECK (cost_micro_usd >= 0),
      budget jsonb,
      result text,
      latest_deploy text,
      live_deploy text,
      trace_id text,
      created_at timestamptz NOT NULL,
      ended_at timestamptz NOT NULL,
      -- The UTC day the run was created on: the day its cost counts on in spend by day.
      created_day date GENERATED ALWAYS AS ((created_at AT TIME ZONE 'UTC')::date) STORED,
      archived_at timestamptz NOT NULL DEFAULT now()
    );

    -- Listing: a tenant's runs, newest first (id breaks ties for the keyset cursor).
    CREATE INDEX runs_tenant_created_idx ON runs (tenant, created_at, id);
    -- Listing by status (every failed run of last week), across tenants or filtered after.
    CREATE INDEX runs_status_created_idx ON runs (status, created_at, id);
    -- Listing without a tenant or status (admins), and time ranges alone.
    CREATE INDEX runs_created_idx ON runs (created_at, id);
    -- Prompt text search ('simple': no stemming, no stop words, any language).
    CREATE INDEX runs_prompt_search_idx ON runs USING gin (to_tsvector('simple', prompt));
    -- Spend per tenant per day: the index holds the cost, so once autovacuum has marked the pages
    -- all-visible the sum needs no table access (an index-only scan).
    CREATE INDEX runs_tenant_day_cost_idx ON runs (tenant, created_day) INCLUDE (cost_micro_usd);

    CREATE TABLE turns (
      run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
      step integer NOT NULL CHECK (step >= 0),
      stop_reason text,
      input_tokens bigint NOT NULL CHECK (input_tokens >= 0),
      cache_write_5m_input_tokens bigint NOT NULL CHECK (cache_write_5m_input_tokens >= 0),
      cache_write_1h_input_tokens bigint NOT NULL CHECK (cache_write_1h_input_tokens >= 0),
      cache_read_input_tokens bigint NOT NULL CHECK (cache_read_input_tokens >= 0),
      output_tokens bigint NOT NULL CHECK (output_tokens >= 0),
      cost_micro_usd bigint NOT NULL CHECK (cost_micro_usd >= 0),
      model_duration_ms integer CHECK (model_duration_ms >= 0),
      turn_duration_ms integer CHECK (turn_duration_ms >= 0),
      request jsonb NOT NULL,
      PRIMARY KEY (run_id, step)
    );

    CREATE TABLE tool_calls (
      run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
      tool_use_id text NOT NULL,
      step integer NOT NULL CHECK (step >= 0),
      tool text NOT NULL,
      input jsonb NOT NULL,
      result jsonb,
      status text NOT NULL,
      error_code text,
      duration_ms integer CHECK (duration_ms >= 0),
      PRIMARY KEY (run_id, tool_use_id)
    );
    -- Every failed call of one tool (every failed deploy), newest runs first via the join.
    CREATE INDEX tool_calls_tool_status_idx ON tool_calls (tool, status);

    CREATE TABLE events (
      run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
      stream_id text NOT NULL,
      -- The event's place in its run's stream (Redis stream ids do not sort as text).
      position integer NOT NULL CHECK (position >= 0),
      step integer NOT NULL,
      event text NOT NULL,
      at timestamptz NOT NULL,
      data jsonb NOT NULL,
      PRIMARY KEY (run_id, stream_id)
    );

    CREATE TABLE transcripts (
      run_id text PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
      messages jsonb NOT NULL
    );
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql('DROP TABLE transcripts, events, tool_calls, turns, runs;');
}
