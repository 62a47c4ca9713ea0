// A plain-text table: a header row and left-aligned columns two spaces apart, the last column
// left ragged so a long prompt does not pad every row.

/** Formats rows under their headers; every row has one cell per header. */
export function formatTable({ headers, rows }: { headers: readonly string[]; rows: ReadonlyArray<readonly string[]> }): string[] {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)];
}
