import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { fail } from '../../http/errors.js';

/**
 * Reading the creator centre's note-data export (创作中心 → 数据中心 → 笔记数据 → 导出), CSV or
 * XLSX, with exceljs and csv-parse rather than a hand-written parser. The export's layout is not
 * documented and has changed over time, so columns are found by their Chinese headers (the
 * aliases below, seen in exports and in the tools that read them), and the header row is the
 * first of the first ten rows that names the note and at least one count: a title line above
 * the table is skipped.
 */

export const MAX_IMPORT_ROWS = 5000;

export type MetricField = 'views' | 'likes' | 'collects' | 'comments' | 'shares' | 'follows';
type Field = MetricField | 'title' | 'link' | 'note_id' | 'published';

const HEADERS: Record<Field, readonly string[]> = {
  title: ['笔记标题', '标题', '笔记名称', '作品标题', '笔记'],
  link: ['笔记链接', '链接', '作品链接', 'url'],
  note_id: ['笔记id', '笔记ID', 'noteid', 'note_id', '作品id'],
  published: ['首次发布时间', '发布时间', '发布日期', '发布于'],
  views: ['观看量', '观看数', '浏览量', '阅读量', '阅读数', '播放量', '小眼睛'],
  likes: ['点赞', '点赞数', '点赞量'],
  collects: ['收藏', '收藏数', '收藏量'],
  comments: ['评论', '评论数', '评论量'],
  shares: ['分享', '分享数', '分享量', '转发', '转发数'],
  follows: ['涨粉', '涨粉数', '直接涨粉数', '关注', '新增关注'],
};
const METRIC_FIELDS: readonly MetricField[] = ['views', 'likes', 'collects', 'comments', 'shares', 'follows'];

const normaliseHeader = (value: string) => value.normalize('NFKC').replace(/\s+/g, '').replace(/[（(].*?[)）]/g, '').toLowerCase();
const HEADER_INDEX = new Map<string, Field>(Object.entries(HEADERS).flatMap(([field, names]) => names.map((n) => [normaliseHeader(n), field as Field])));

export interface ImportRow {
  /** The row's number as the spreadsheet shows it (1-based, header included). */
  row: number;
  title: string | null;
  link: string | null;
  noteId: string | null;
  /** The publishing time as written (a date, or a date and time), or an Excel date. */
  published: Date | string | null;
  counts: Partial<Record<MetricField, number | null>>;
  /** Count columns whose cell is not a whole number ≥ 0. */
  invalid: MetricField[];
}

type Cell = string | number | Date | boolean | null | undefined;

function cellText(value: Cell): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  return String(value).trim();
}

/** "1.2万", "3,456", "12" → a whole number; "" → null (unknown); anything else → NaN. */
function count(value: Cell): number | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : Number.NaN;
  const text = String(value).trim().replace(/,/g, '');
  if (text === '' || text === '-') return null;
  const match = /^(\d+(?:\.\d+)?)(万|w|k|千)?$/i.exec(text);
  if (!match) return Number.NaN;
  const scale = match[2] === '万' || match[2]?.toLowerCase() === 'w' ? 10_000 : match[2] ? 1_000 : 1;
  const n = Number(match[1]) * scale;
  return Number.isFinite(n) ? Math.round(n) : Number.NaN;
}

/** The file's rows as cells: XLSX by its zip signature, else text (UTF-8, or GB18030 as Excel in China saves CSV). */
async function readCells(file: Buffer): Promise<Cell[][]> {
  const isZip = file.length > 4 && file[0] === 0x50 && file[1] === 0x4b && file[2] === 0x03 && file[3] === 0x04;
  if (isZip) {
    const workbook = new ExcelJS.Workbook();
    try {
      await workbook.xlsx.load(file as unknown as ArrayBuffer);
    } catch (err) {
      throw fail('results.import_unreadable', { detail: (err as Error).message.slice(0, 200) });
    }
    const sheet = workbook.worksheets[0];
    if (!sheet) throw fail('results.import_unreadable', { detail: 'the workbook has no sheet' });
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
  if (text.includes('\u0000')) throw fail('results.import_unreadable', { detail: 'not a text or XLSX file' });
  try {
    return parseCsv(text.replace(/^\uFEFF/, ''), { relax_column_count: true, skip_empty_lines: false, bom: true }) as Cell[][];
  } catch (err) {
    throw fail('results.import_unreadable', { detail: (err as Error).message.slice(0, 200) });
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

export async function readImportFile(file: Buffer): Promise<ImportRow[]> {
  const cells = await readCells(file);
  let headerAt = -1;
  let columns = new Map<Field, number>();
  for (let i = 0; i < Math.min(10, cells.length); i++) {
    const found = new Map<Field, number>();
    cells[i]!.forEach((cell, col) => {
      const field = HEADER_INDEX.get(normaliseHeader(cellText(cell)));
      if (field && !found.has(field)) found.set(field, col);
    });
    const namesNote = found.has('title') || found.has('link') || found.has('note_id');
    if (namesNote && METRIC_FIELDS.some((f) => found.has(f))) {
      headerAt = i;
      columns = found;
      break;
    }
  }
  if (headerAt < 0) throw fail('results.import_no_header');
  const data = cells.slice(headerAt + 1);
  if (data.length > MAX_IMPORT_ROWS) throw fail('results.import_too_many_rows', { max: MAX_IMPORT_ROWS });
  const rows: ImportRow[] = [];
  data.forEach((cellsOfRow, i) => {
    if (cellsOfRow.every((c) => cellText(c) === '')) return;
    const at = (field: Field) => (columns.has(field) ? cellsOfRow[columns.get(field)!] : undefined);
    const text = (field: Field) => cellText(at(field)) || null;
    const counts: ImportRow['counts'] = {};
    const invalid: MetricField[] = [];
    for (const field of METRIC_FIELDS) {
      if (!columns.has(field)) continue;
      const n = count(at(field));
      if (Number.isNaN(n)) invalid.push(field);
      else counts[field] = n;
    }
    const published = at('published');
    rows.push({
      row: headerAt + 2 + i,
      title: text('title'),
      link: text('link'),
      noteId: text('note_id'),
      published: published instanceof Date ? published : text('published'),
      counts,
      invalid,
    });
  });
  return rows;
}
