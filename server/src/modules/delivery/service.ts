import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/codec.js';
import type { Row } from '../../db/schema.js';
import { fail } from '../../http/errors.js';
import { errorColumns, failure, type FailureReason, type StoredParams } from '../../http/reasons.js';
import { sessionIsCurrent, type AuthUser } from '../../http/auth.js';
import { API_PREFIX } from '../../http/module.js';
import { pageOf, pageWindow, type PageQuery } from '../../http/schemas.js';
import { hashToken, newOneTimeToken } from '../../security/tokens.js';
import { recordAudit } from '../audit/service.js';
import { wordsBlockingShipment } from '../notes/service.js';
import { assertAccepts } from '../tasks/service.js';
import { packageBuildJob, setRank } from './build.js';
import * as repo from './repository.js';

export const DOWNLOAD_TOKEN_TTL_SECONDS = 60;

type Text = Awaited<ReturnType<typeof repo.taskTexts>>[number];

const byScoreThenId = (a: Text, b: Text) => b.score_total - a.score_total || a.id - b.id;

/**
 * contract-decisions §4: the requested texts; else every set's selected text; else, when no
 * text is selected at all, each set's best-scored text. A selection is the operator's choice,
 * so a set left unselected next to selected ones stays out. Hard-blocked texts are never packed.
 * Resolved now and stored on the package, so the zip holds what the user asked for even if the
 * selection changes meanwhile.
 */
function resolveNotes(texts: Text[], noteIds: number[] | undefined): number[] {
  let chosen: Text[];
  if (noteIds) {
    const byId = new Map(texts.map((t) => [t.id, t]));
    chosen = [...new Set(noteIds)].map((id) => {
      const text = byId.get(id);
      if (!text) throw fail('text.not_in_task', { id });
      const blocking = wordsBlockingShipment(text);
      if (blocking.length > 0) throw fail('text.hard_blocked', { id, words: blocking });
      return text;
    });
  } else {
    const packable = texts.filter((t) => wordsBlockingShipment(t).length === 0);
    const selected = packable.filter((t) => t.is_selected);
    const best = new Map<string | null, Text>();
    for (const t of (selected.length > 0 ? selected : packable).sort(byScoreThenId)) {
      if (!best.has(t.strategy)) best.set(t.strategy, t);
    }
    chosen = [...best.values()];
  }
  // Stable sort: inside one set the order the caller gave is kept.
  return chosen.sort((a, b) => setRank(a.strategy) - setRank(b.strategy)).map((t) => t.id);
}

export async function createPackage(ctx: AppContext, auth: AuthUser, taskId: number, noteIds: number[] | undefined) {
  const task = await repo.findTask(ctx.db, auth.workspaceId, taskId);
  if (!task) throw fail('task.not_found');
  assertAccepts('package', task, auth);
  const resolved = resolveNotes(await repo.taskTexts(ctx.db, auth.workspaceId, taskId), noteIds);
  if (resolved.length === 0) throw fail('package.nothing');
  const at = ctx.clock.now();
  const now = nowIso(at);
  const pkg = await ctx.db.transaction().execute(async (trx) => {
    const inserted = await repo.insertPackage(trx, { workspace_id: auth.workspaceId, task_id: taskId, created_by: auth.userId, status: 'pending', created_at: now, updated_at: now });
    await repo.insertPackageNotes(trx, auth.workspaceId, inserted.id, resolved);
    await recordAudit(trx, { workspaceId: auth.workspaceId, taskId, userId: auth.userId, now: at }, [
      { kind: 'package', action: 'create_package', detail: { package_id: inserted.id, note_ids: resolved } },
    ]);
    return inserted;
  });
  try {
    await ctx.queue.enqueue(packageBuildJob.kind, pkg.id);
  } catch (err) {
    // Without its job the package would stay pending forever: say so on the package.
    await repo.transition(ctx.db, auth.workspaceId, pkg.id, 'pending', { status: 'failed', ...errorColumns(failure('failure.package_queue')), updated_at: nowIso(ctx.clock.now()) });
    throw err;
  }
  return { delivery_package_id: pkg.id, status: 'pending' as const };
}

export function downloadPath(id: number): string {
  return `${API_PREFIX}/delivery-packages/${id}/download-file`;
}

/**
 * contract-decisions §3: from `expires_at` on, download-token and download-file answer 40903
 * (package again); the unused-file sweep (modules/files/service.ts) then removes the zip.
 */
function hasExpired(pkg: Row<'delivery_packages'>, now: Date): boolean {
  return pkg.expires_at !== null && Date.parse(pkg.expires_at) <= now.getTime();
}

/** `download_url` only while the file can be downloaded: ready or downloaded, and not expired. */
export function packageView(pkg: Row<'delivery_packages'>, noteIds: number[], now: Date) {
  const downloadable = (pkg.status === 'ready' || pkg.status === 'downloaded') && !hasExpired(pkg, now);
  return {
    id: pkg.id,
    task_id: pkg.task_id,
    status: pkg.status,
    download_url: downloadable ? downloadPath(pkg.id) : null,
    expires_at: pkg.expires_at,
    file_name: pkg.file_name,
    size_bytes: pkg.size_bytes === null ? null : Number(pkg.size_bytes),
    note_ids: noteIds,
    error: pkg.error,
    error_key: pkg.error_key as FailureReason | null,
    error_params: pkg.error_key ? ((pkg.error_params ?? {}) as StoredParams) : null,
    created_at: pkg.created_at,
    ready_at: pkg.ready_at,
  };
}

async function packageOf(ctx: AppContext, workspaceId: number, id: number) {
  const pkg = await repo.findPackage(ctx.db, workspaceId, id);
  if (!pkg) throw fail('package.not_found');
  return pkg;
}

async function viewOf(ctx: AppContext, workspaceId: number, id: number) {
  const [pkg, notes] = await Promise.all([packageOf(ctx, workspaceId, id), repo.packageNoteIds(ctx.db, workspaceId, [id])]);
  return packageView(pkg, notes.get(id) ?? [], ctx.clock.now());
}

export function getPackage(ctx: AppContext, auth: AuthUser, id: number) {
  return viewOf(ctx, auth.workspaceId, id);
}

export async function listTaskPackages(ctx: AppContext, auth: AuthUser, taskId: number, query: PageQuery) {
  if (!(await repo.findTask(ctx.db, auth.workspaceId, taskId))) throw fail('task.not_found');
  const [rows, total] = await repo.taskPackages(ctx.db, auth.workspaceId, taskId, pageWindow(query));
  const notes = await repo.packageNoteIds(ctx.db, auth.workspaceId, rows.map((row) => row.id));
  const now = ctx.clock.now();
  return pageOf(rows.map((row) => packageView(row, notes.get(row.id) ?? [], now)), total, query);
}

/** ready → downloaded; repeating it on a downloaded package changes nothing. */
export async function markDownloaded(ctx: AppContext, auth: AuthUser, id: number) {
  const pkg = await packageOf(ctx, auth.workspaceId, id);
  if (pkg.status === 'ready') {
    await repo.transition(ctx.db, auth.workspaceId, id, 'ready', { status: 'downloaded', updated_at: nowIso(ctx.clock.now()) });
  } else if (pkg.status !== 'downloaded') {
    throw fail('package.not_ready', { status: pkg.status });
  }
  return viewOf(ctx, auth.workspaceId, id);
}

/**
 * The package's file, when it may be downloaded: ready or downloaded (else 40902), not past its
 * expiry and still in storage (else 40903, the client should package again).
 */
async function downloadableFile(ctx: AppContext, pkg: Row<'delivery_packages'>): Promise<{ key: string; size: number; name: string }> {
  if (pkg.status !== 'ready' && pkg.status !== 'downloaded') {
    throw fail('package.not_ready', { status: pkg.status });
  }
  if (hasExpired(pkg, ctx.clock.now())) {
    throw fail('package.expired', { expires_at: pkg.expires_at });
  }
  const stat = pkg.file_key ? await ctx.storage.stat(pkg.file_key) : undefined;
  if (!pkg.file_key || !stat) throw fail('package.file_gone');
  return { key: pkg.file_key, size: stat.size, name: pkg.file_name ?? `delivery_${pkg.id}.zip` };
}

export async function issueDownloadToken(ctx: AppContext, auth: AuthUser, id: number) {
  const pkg = await packageOf(ctx, auth.workspaceId, id);
  await downloadableFile(ctx, pkg);
  const now = ctx.clock.now();
  const { token, hash } = newOneTimeToken();
  await repo.purgeDownloadTokens(ctx.db, nowIso(new Date(now.getTime() - 24 * 60 * 60 * 1000)));
  await repo.insertDownloadToken(ctx.db, {
    token_hash: hash,
    kind: 'download',
    workspace_id: auth.workspaceId,
    user_id: auth.userId,
    subject_id: id,
    token_version: auth.tokenVersion,
    session_version: auth.membershipVersion,
    expires_at: nowIso(new Date(now.getTime() + DOWNLOAD_TOKEN_TTL_SECONDS * 1000)),
    created_at: nowIso(now),
  });
  return { token, expires_in: DOWNLOAD_TOKEN_TTL_SECONDS };
}

/** With a token: the token decides (and is used up); without one, the bearer's workspace. */
export async function fileForDownload(ctx: AppContext, id: number, who: { token: string } | { auth: AuthUser }) {
  let workspaceId: number;
  if ('token' in who) {
    const consumed = await repo.consumeDownloadToken(ctx.db, hashToken(who.token), id, nowIso(ctx.clock.now()));
    // A token ends with the session it was issued in: removal, role or password change.
    const current =
      consumed?.user_id != null &&
      (await sessionIsCurrent(ctx, { userId: consumed.user_id, workspaceId: consumed.workspace_id, tokenVersion: consumed.token_version, membershipVersion: consumed.session_version }));
    if (!consumed || !current) throw fail('download.token_invalid');
    workspaceId = consumed.workspace_id;
  } else {
    workspaceId = who.auth.workspaceId;
  }
  return downloadableFile(ctx, await packageOf(ctx, workspaceId, id));
}
