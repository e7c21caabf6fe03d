import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import type { AppContext } from '../../context.js';
import { safeDownloadName } from '../../http/content-disposition.js';
import { errorColumns, failure, NO_ERROR } from '../../http/reasons.js';
import { nowIso } from '../../db/codec.js';
import type { Row } from '../../db/schema.js';
import { MAX_INPUT_PIXELS, sniffImageMime } from '../../images/probe.js';
import { PermanentJobError, type JobDefinition } from '../../jobs/types.js';
import { imageExtension, notesZip, shippedImages, type NoteFolder } from '../notes/service.js';
import { notifyPackageReady } from '../webhooks/service.js';
import { syncCovers } from '../tasks/service.js';
import * as repo from './repository.js';

export const PACKAGE_LIFETIME_DAYS = 7;
const SET_ORDER = ['A', 'B', 'C'];

/** Sets in contract order; texts of older data without a strategy come last. */
export function setRank(strategy: string | null): number {
  const i = strategy ? SET_ORDER.indexOf(strategy) : -1;
  return i < 0 ? SET_ORDER.length : i;
}

/** A reason the build cannot succeed that the user can act on; shown on the package as is. */
class PackageBuildError extends PermanentJobError {}

const INTERNAL_FAILURE = failure('failure.package_build').message;

type Image = Awaited<ReturnType<typeof repo.taskImages>>[number];
type Text = Awaited<ReturnType<typeof repo.taskTexts>>[number];

const pad2 = (n: number) => String(n).padStart(2, '0');

/** Characters Windows or macOS refuse in file names, and control characters. */
function safeNamePart(value: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\\/:*?"<>|\u0000-\u001f\u007f]+/g, '_').replace(/\s+/g, ' ').trim().slice(0, max);
}

function packageFileName(productName: string, theme: string, id: number): string {
  const parts = [safeNamePart(productName, 40), safeNamePart(theme, 40)].filter(Boolean);
  return safeDownloadName(`${[...parts, `package_${id}`].join('_')}.zip`, `package_${id}.zip`);
}

async function readImage(ctx: AppContext, image: Image): Promise<Buffer> {
  try {
    return await ctx.storage.read(image.file_key);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new PackageBuildError(`the file of image candidate ${image.id} (set ${image.strategy}, seq ${image.seq}) is missing`);
    }
    throw err;
  }
}

/**
 * Stored images are normalised when they come from a provider, with no metadata but the XMP of
 * the AI label (contract-decisions §12), which stays; anything that still carries EXIF, IPTC,
 * an ICC profile or text comments is re-encoded without them. `asStored`: the bytes are the
 * stored file's.
 */
async function deliverableImage(ctx: AppContext, image: Image): Promise<{ data: Buffer; extension: string; asStored: boolean }> {
  let data = await readImage(ctx, image);
  const mime = sniffImageMime(data);
  if (!mime) throw new PackageBuildError(`image candidate ${image.id} is not a JPEG, PNG or WebP file`);
  const meta = await sharp(data, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  if (!(meta.exif || meta.iptc || meta.icc || (meta.comments?.length ?? 0) > 0)) return { data, extension: imageExtension(mime), asStored: true };
  // sharp writes no metadata unless asked to (withMetadata/keepExif), so a re-encode strips it.
  const encoder = sharp(data, { limitInputPixels: MAX_INPUT_PIXELS }).keepXmp();
  if (mime === 'image/jpeg') data = await encoder.jpeg({ quality: 92, mozjpeg: true }).toBuffer();
  else if (mime === 'image/webp') data = await encoder.webp({ quality: 92 }).toBuffer();
  else data = await encoder.png().toBuffer();
  return { data, extension: imageExtension(mime), asStored: false };
}

interface Plan {
  folders: Array<{ name: string; text: Text; images: Image[] }>;
}

async function planPackage(ctx: AppContext, pkg: Row<'delivery_packages'>): Promise<Plan> {
  const noteIds = (await repo.packageNoteIds(ctx.db, pkg.workspace_id, [pkg.id])).get(pkg.id) ?? [];
  if (noteIds.length === 0) throw new PackageBuildError('the package names no text to pack');
  // Covers carry the cover title of the text they ship with (contract-decisions §8).
  await syncCovers(ctx, pkg.workspace_id, pkg.task_id);
  const [texts, images] = await Promise.all([
    repo.textsByIds(ctx.db, pkg.workspace_id, pkg.task_id, noteIds),
    repo.taskImages(ctx.db, pkg.workspace_id, pkg.task_id),
  ]);
  const byId = new Map(texts.map((t) => [t.id, t]));
  // A selection anywhere in the task is the selection: a set with none selected then ships none.
  const anySelected = images.some((i) => i.is_selected);
  const ordered = noteIds.map((id) => {
    const text = byId.get(id);
    if (!text) throw new PackageBuildError(`text candidate ${id} no longer exists`);
    return text;
  });
  ordered.sort((a, b) => setRank(a.strategy) - setRank(b.strategy));
  return {
    folders: ordered.map((text, i) => ({
      name: `note_${pad2(i + 1)}${text.strategy ? `_${text.strategy}` : ''}`,
      text,
      images: shippedImages(images.filter((i) => i.strategy === text.strategy && (!anySelected || i.is_selected))),
    })),
  };
}

/**
 * Writes the zip straight into storage (notes/service notesZip, the layout of every zip of notes:
 * one entry in memory at a time, storage pulling with backpressure). Entry times are the
 * package's creation time, so a rebuild of the same content yields the same bytes (and, storage
 * being content-addressed, the same key).
 */
async function writeZip(ctx: AppContext, plan: Plan, mtime: Date, signal: AbortSignal) {
  // Every note folder of a set holds the set's images, so a package packs each image once per
  // note of its set. Stored files never change (their key is their content's hash): once an
  // image has passed the checks as it is stored, later copies are only read, and their CRC-32
  // is the one already computed.
  const passed = new Map<string, number>();
  const folders: NoteFolder[] = plan.folders.map((folder) => ({
    name: folder.name,
    text: folder.text,
    images: folder.images.map((image) => ({
      seq: image.seq,
      role: image.role,
      mime: image.mime,
      read: async () => {
        const known = passed.get(image.file_key);
        if (known !== undefined) return { data: await readImage(ctx, image), crc32: known };
        const prepared = await deliverableImage(ctx, image);
        // Names are fixed before any image is read, so they follow the stored mime; the bytes
        // are checked against it when the image is read.
        if (prepared.extension !== imageExtension(image.mime)) {
          throw new PackageBuildError(`image candidate ${image.id} is stored as ${image.mime} but its bytes are ${prepared.extension}`);
        }
        if (!prepared.asStored) return prepared.data;
        const crc = crc32(prepared.data);
        passed.set(image.file_key, crc);
        return { data: prepared.data, crc32: crc };
      },
    })),
  }));
  const zip = notesZip(folders, { mtime, signal });
  try {
    const stored = await ctx.storage.putStream(zip.output, { contentType: 'application/zip', extension: 'zip' });
    return { ...stored, imageCount: folders.reduce((n, folder) => n + folder.images.length, 0) };
  } catch (err) {
    zip.abort();
    throw zip.failure() ?? err;
  }
}

/**
 * One build attempt: pending → ready. Safe to run again for the same id at any point: a package
 * that is no longer pending is left alone, and of two attempts racing (a retry after a lost
 * worker) only the first to finish is recorded.
 */
async function buildDeliveryPackage(ctx: AppContext, packageId: number, signal: AbortSignal): Promise<void> {
  const pkg = await repo.findPackageForBuild(ctx.db, packageId);
  if (!pkg || pkg.status !== 'pending') return;
  const log = ctx.log.child({ packageId, taskId: pkg.task_id });
  const task = await repo.findTask(ctx.db, pkg.workspace_id, pkg.task_id);
  if (!task) throw new PackageBuildError('the task no longer exists');
  const plan = await planPackage(ctx, pkg);
  await ctx.events.append(pkg.task_id, [{ name: 'progress', data: { stage: 'package', done: 0, total: plan.folders.length } }]);
  const stored = await writeZip(ctx, plan, new Date(pkg.created_at), signal);
  const now = ctx.clock.now();
  // The team hears of the package in the transaction that makes it ready (contract-decisions §10).
  const won = await ctx.db.transaction().execute(async (trx) => {
    const moved = await repo.transition(trx, pkg.workspace_id, pkg.id, 'pending', {
      status: 'ready',
      file_key: stored.key,
      size_bytes: stored.size,
      file_name: packageFileName(task.product_name, task.theme, pkg.id),
      ...NO_ERROR,
      ready_at: nowIso(now),
      expires_at: nowIso(new Date(now.getTime() + PACKAGE_LIFETIME_DAYS * 24 * 60 * 60 * 1000)),
      updated_at: nowIso(now),
    });
    if (moved) await notifyPackageReady(trx, pkg.workspace_id, pkg.id);
    return moved;
  });
  if (!won) {
    // Its zip, unless identical to the winner's, is left to the unused-file sweep.
    log.info('package was settled by another attempt; this build is discarded');
    return;
  }
  await ctx.events.append(pkg.task_id, [{ name: 'progress', data: { stage: 'package', done: plan.folders.length, total: plan.folders.length } }]);
  log.info({ size: stored.size, notes: plan.folders.length, images: stored.imageCount }, 'package ready');
}

/**
 * The `package.build` job. A build error the user can act on fails the package at once (shown
 * as its `error`); anything else is retried by the queue and, once attempts run out, fails the
 * package with a generic reason, since the raw error may name server paths.
 */
export const packageBuildJob: JobDefinition = {
  kind: 'package.build',
  findStale: repo.findStalePackages,
  async run(ctx, packageId, job) {
    try {
      await buildDeliveryPackage(ctx, packageId, job.signal);
    } catch (err) {
      if (err instanceof PackageBuildError || job.signal.aborted) throw err;
      ctx.log.error({ err, packageId, attempt: job.attempt }, 'package build attempt failed');
      throw new Error(INTERNAL_FAILURE);
    }
  },
  async onFailed(ctx, packageId, reason) {
    const pkg = await repo.findPackageForBuild(ctx.db, packageId);
    // The queue hands over the job's last error text: ours for an internal error, else a PackageBuildError's.
    const failed = reason === INTERNAL_FAILURE ? failure('failure.package_build') : failure('failure.package_rejected', { detail: reason });
    if (pkg) await repo.transition(ctx.db, pkg.workspace_id, packageId, 'pending', { status: 'failed', ...errorColumns(failed), updated_at: nowIso(ctx.clock.now()) });
  },
};
