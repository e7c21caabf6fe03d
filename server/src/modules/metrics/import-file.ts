import { fail } from '../../http/errors.js';
import { cellText, normaliseHeader, readCells, type Cell } from '../../spreadsheets/cells.js';

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

export async function readImportFile(file: Buffer): Promise<ImportRow[]> {
  const cells = await readCells(file, 'results.import_unreadable');
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
