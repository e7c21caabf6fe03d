import { stringify } from 'csv-stringify/sync';

/**
 * Spreadsheets run cells starting with = + - @ (or a tab/CR) as formulas; exported text must
 * stay text, so such cells get a leading apostrophe (the OWASP advice).
 */
function csvSafe(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** A CSV download: UTF-8 with a byte-order mark, so Excel opens Chinese text correctly; RFC 4180 quoting. */
export function spreadsheetCsv(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number | null>>): string {
  const cells = rows.map((row) => row.map((cell) => (typeof cell === 'string' ? csvSafe(cell) : cell === null ? '' : String(cell))));
  return '\uFEFF' + stringify([[...header], ...cells], { record_delimiter: '\r\n', quoted_match: /[",\r\n]/ });
}
