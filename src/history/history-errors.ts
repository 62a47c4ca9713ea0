// The history store's errors, each with a stable code (docs/history.md lists them).

/** A run archive that does not match RunArchive: nothing of it was written. */
export class RunArchiveInvalid extends Error {
  readonly code = 'run_archive_invalid';
  constructor(
    readonly runId: string,
    detail: string,
  ) {
    super(`The archive of run ${runId} is invalid: ${detail}`);
    this.name = 'RunArchiveInvalid';
  }
}

/** A row read back from PostgreSQL that does not decode: reported, never passed on half-read. */
export class StoredHistoryRowInvalid extends Error {
  readonly code = 'stored_history_row_invalid';
  constructor(
    readonly table: string,
    readonly key: string,
    readonly field: string,
    detail: string,
  ) {
    super(`The stored ${table} row ${key} is invalid at "${field}": ${detail}`);
    this.name = 'StoredHistoryRowInvalid';
  }
}

/** A listing cursor that this store did not hand out (or that was altered). */
export class HistoryCursorInvalid extends Error {
  readonly code = 'history_cursor_invalid';
  constructor(detail: string) {
    super(`The history cursor is invalid: ${detail}`);
    this.name = 'HistoryCursorInvalid';
  }
}
