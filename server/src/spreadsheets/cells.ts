import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { fail } from '../http/errors.js';

/**
 * Spreadsheets people upload (the creator centre's export, a batch plan): CSV or XLSX read with
 * csv-parse and exceljs into rows of cells, rather than a hand-written parser.
 */

/** A header as written, compared without spaces, width, case or a bracketed unit: "观看量（次）" = "观看量". */
export const normaliseHeader = (value: string) => value.normalize('NFKC').replace(/\s+/g, '').replace(/[（(].*?[)）]/g, '').toLowerCase();

export type Cell = string | number | Date | boolean | null | undefined;

export function cellText(value: Cell): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  return String(value).trim();
}

/** The file's rows as cells: XLSX by its zip signature, else text (UTF-8, or GB18030 as Excel in China saves CSV). */
export async function readCells(file: Buffer, unreadable: 'results.import_unreadable' | 'batch.plan_unreadable'): Promise<Cell[][]> {
  const isZip = file.length > 4 && file[0] === 0x50 && file[1] === 0x4b && file[2] === 0x03 && file[3] === 0x04;
  if (isZip) {
    const workbook = new ExcelJS.Workbook();
    try {
      await workbook.xlsx.load(file as unknown as ArrayBuffer);
    } catch (err) {
      throw fail(unreadable, { detail: (err as Error).message.slice(0, 200) });
    }
    const sheet = workbook.worksheets[0];
    if (!sheet) throw fail(unreadable, { detail: 'the workbook has no sheet' });
    const rows: Cell[][] = [];
    sheet.eachRow({ includeEmpty: true }, (row, number) => {
      const values = (row.values as Cell[]).slice(1).map((v) => (v && typeof v === 'object' && !(v instanceof Date) ? plainCell(v) : v));
      rows[number - 1] = values;
    });
    return Array.from(rows, (r) => r ?? []);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(file);
  } catch {
    text = new TextDecoder('gb18030').decode(file);
  }
  if (text.includes('\u0000')) throw fail(unreadable, { detail: 'not a text or XLSX file' });
  try {
    return parseCsv(text.replace(/^\uFEFF/, ''), { relax_column_count: true, skip_empty_lines: false, bom: true }) as Cell[][];
  } catch (err) {
    throw fail(unreadable, { detail: (err as Error).message.slice(0, 200) });
  }
}

/** exceljs gives rich text, hyperlinks and formulas as objects: their shown value. */
function plainCell(value: object): Cell {
  const v = value as { text?: unknown; result?: unknown; richText?: Array<{ text: string }>; hyperlink?: string };
  if (Array.isArray(v.richText)) return v.richText.map((r) => r.text).join('');
  if (typeof v.text === 'string') return v.text;
  if (v.result !== undefined) return v.result as Cell;
  return null;
}

