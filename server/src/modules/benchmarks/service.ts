import type { AppContext } from '../../context.js';
import { json, nowIso } from '../../db/codec.js';
import { fail } from '../../http/errors.js';
import { spreadsheetCsv } from '../../http/csv.js';
import type { AuthUser } from '../../http/auth.js';
import { pageOf, pageWindow, type PageQuery } from '../../http/schemas.js';
import { fileUrl } from '../../storage/signed-url.js';
import { cleanUploadedImage } from '../../images/clean.js';
import { getProduct } from '../products/service.js';
import { FEATURE_KEYS } from './features.js';
import * as repo from './repository.js';
import { parseShareText } from './share-text.js';

type BenchmarkRow = NonNullable<Awaited<ReturnType<typeof repo.findBenchmark>>>;

/**
 * `screenshot_url` is the legacy link when one was given; for an uploaded screenshot it is a
 * signed link to the stored file, so clients show either the same way.
 */
export function benchmarkView(ctx: AppContext, row: BenchmarkRow) {
  return {
    id: row.id,
    product_id: row.product_id,
    screenshot_url: row.screenshot_key ? fileUrl(ctx, row.screenshot_key) : row.screenshot_url,
    has_uploaded_screenshot: row.screenshot_key !== null,
    highlights: row.highlights,
    link_url: row.link_url,
    features: row.features,
    analyze_status: row.analyze_status,
    analysis_source: row.analysis_source,
    analysis_warning: row.analysis_warning,
    analysis_warning_codes: row.analysis_warning_codes ?? [],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** http(s) URLs only; anything else (javascript:, file:, data:, ftp:) is refused with the field named. */
export function httpUrlOrNull(field: string, value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  if (!trimmed) return null;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw fail('validation.http_url', { field });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail('validation.http_url', { field });
  if (url.username || url.password) throw fail('benchmark.url_credentials', { field });
  return url.toString();
}

export async function listBenchmarks(ctx: AppContext, auth: AuthUser, productId: number, query: PageQuery) {
  await getProduct(ctx, auth, productId);
  const [rows, total] = await repo.listBenchmarks(ctx.db, auth.workspaceId, productId, pageWindow(query));
  return pageOf(rows.map((r) => benchmarkView(ctx, r)), total, query);
}

export async function findBenchmarkOr404(ctx: AppContext, auth: AuthUser, id: number): Promise<BenchmarkRow> {
  const row = await repo.findBenchmark(ctx.db, auth.workspaceId, id);
  if (!row) throw fail('benchmark.not_found');
  return row;
}

export async function getBenchmark(ctx: AppContext, auth: AuthUser, id: number) {
  return benchmarkView(ctx, await findBenchmarkOr404(ctx, auth, id));
}

export interface BenchmarkInput {
  screenshot_url?: string | null | undefined;
  highlights?: string | undefined;
  link_url?: string | null | undefined;
  share_text?: string | undefined;
}

/**
 * A pasted share text gives the link when `link_url` is absent and the note's title as the
 * highlights when they are blank; a share text without a link is refused (the operator pasted
 * the wrong thing). The link is only stored here: it is fetched at analysis, through the SSRF
 * guard (public addresses only, every redirect checked).
 */
function withSharedNote<T extends BenchmarkInput>(input: T): T {
  if (!input.share_text?.trim()) return input;
  const shared = parseShareText(input.share_text);
  if (!shared.link) throw fail('benchmark.no_link');
  return {
    ...input,
    link_url: input.link_url?.trim() ? input.link_url : shared.link,
    highlights: input.highlights?.trim() ? input.highlights : (shared.title ?? input.highlights),
  };
}

export async function createBenchmark(
  ctx: AppContext,
  auth: AuthUser,
  productId: number,
  input: BenchmarkInput,
  screenshot?: Buffer,
) {
  await getProduct(ctx, auth, productId);
  input = withSharedNote(input);
  const values = {
    screenshot_url: httpUrlOrNull('screenshot_url', input.screenshot_url),
    link_url: httpUrlOrNull('link_url', input.link_url),
    highlights: (input.highlights ?? '').trim(),
  };
  // A benchmark with nothing to learn from is a click by mistake.
  if (!values.highlights && !values.link_url && !values.screenshot_url && !screenshot) throw fail('benchmark.empty');
  let screenshotKey: string | null = null;
  if (screenshot) {
    // Stored re-encoded: screenshots often carry the phone's EXIF, GPS position included.
    const clean = await cleanUploadedImage(screenshot);
    screenshotKey = (await ctx.storage.put(clean.data, { contentType: clean.mime, extension: clean.extension })).key;
  }
  const now = nowIso(ctx.clock.now());
  // A screenshot stored for an insert that then fails is left to the unused-file sweep.
  const id = await repo.insertBenchmark(ctx.db, {
    workspace_id: auth.workspaceId,
    product_id: productId,
    ...values,
    screenshot_key: screenshotKey,
    features: json(null),
    analyze_status: 'pending',
    analysis_source: null,
    analysis_warning: null,
    analysis_warning_codes: json(null),
    created_at: now,
    updated_at: now,
  });
  return getBenchmark(ctx, auth, id);
}

/**
 * Changes the highlights and the link (a share text gives a new link); fields left out stay. The
 * analysis already written stays too until the operator runs it again.
 */
export async function updateBenchmark(ctx: AppContext, auth: AuthUser, id: number, input: Omit<BenchmarkInput, 'screenshot_url'>) {
  const existing = await findBenchmarkOr404(ctx, auth, id);
  // A share text's title fills the highlights only when the note has none yet.
  const resolved = withSharedNote({ ...input, highlights: input.highlights ?? existing.highlights });
  const changes = {
    ...(resolved.link_url !== undefined ? { link_url: httpUrlOrNull('link_url', resolved.link_url) } : {}),
    ...(resolved.highlights !== undefined ? { highlights: resolved.highlights.trim() } : {}),
  };
  await repo.updateBenchmark(ctx.db, auth.workspaceId, id, { ...changes, updated_at: nowIso(ctx.clock.now()) });
  return getBenchmark(ctx, auth, id);
}

/** The screenshot's file is left to the unused-file sweep (modules/files/service.ts). */
export async function deleteBenchmark(ctx: AppContext, auth: AuthUser, id: number) {
  await findBenchmarkOr404(ctx, auth, id);
  await repo.deleteBenchmark(ctx.db, auth.workspaceId, id);
}

/** Benchmarks of the given products (all products when omitted), for the product export. */
export async function benchmarksForExport(ctx: AppContext, workspaceId: number, productIds?: number[]) {
  const rows = await repo.benchmarksWithProduct(ctx.db, workspaceId, productIds);
  // The legacy link as stored, not a signed link that would expire inside the file.
  return rows.map((r) => ({ ...benchmarkView(ctx, r), screenshot_url: r.screenshot_url }));
}

const CSV_COLUMNS = [
  'id',
  'product_id',
  'product_name',
  'highlights',
  'link_url',
  'screenshot_url',
  'analyze_status',
  'analysis_source',
  'analysis_warning',
  ...FEATURE_KEYS,
  'created_at',
] as const;

/** The workspace's benchmarks (or one product's) as a spreadsheet download. */
export async function benchmarksCsv(ctx: AppContext, auth: AuthUser, productId?: number): Promise<string> {
  if (productId !== undefined) await getProduct(ctx, auth, productId);
  const rows = await repo.benchmarksWithProduct(ctx.db, auth.workspaceId, productId === undefined ? undefined : [productId]);
  const records = rows.map((r) => {
    const features = (r.features ?? {}) as Record<string, unknown>;
    const cells: Record<string, unknown> = {
      id: r.id,
      product_id: r.product_id,
      product_name: r.product_name,
      highlights: r.highlights,
      link_url: r.link_url ?? '',
      screenshot_url: r.screenshot_key ? '(uploaded)' : (r.screenshot_url ?? ''),
      analyze_status: r.analyze_status,
      analysis_source: r.analysis_source ?? '',
      analysis_warning: r.analysis_warning ?? '',
      created_at: r.created_at,
    };
    for (const key of FEATURE_KEYS) {
      const v = features[key];
      cells[key] = Array.isArray(v) ? v.join(' ') : typeof v === 'string' ? v : '';
    }
    return CSV_COLUMNS.map((c) => (typeof cells[c] === 'string' ? (cells[c] as string) : String(cells[c])));
  });
  return spreadsheetCsv(CSV_COLUMNS, records);
}

/** The benchmarks a task was created with, with what generation reads of them (highlights, analysed features). */
export function benchmarksForGeneration(ctx: AppContext, workspaceId: number, productId: number, taskId: number) {
  return repo.findForTask(ctx.db, workspaceId, productId, taskId);
}
