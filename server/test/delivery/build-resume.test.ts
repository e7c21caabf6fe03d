import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.js';
import type { AuthUser } from '../../src/http/auth.js';
import { packageBuildJob } from '../../src/modules/delivery/build.js';
import { createPackage } from '../../src/modules/delivery/service.js';
import { sweepUnusedFiles } from '../../src/modules/files/service.js';
import type { FileStorage, StoredFile } from '../../src/storage/types.js';
import { startTestWorld, type TestWorld } from '../helpers/server.js';
import { imageBytes, seedImage, seedProduct, seedTask, seedText } from './fixtures.js';
import { readZip } from './zip.js';

/**
 * A worker that dies mid-build never finishes its upload; the queue then runs the job again
 * elsewhere. Here attempt 1 is frozen inside storage (its zip stream stalls on backpressure,
 * as it would in a dead process), attempt 2 runs to the end, and then attempt 1 is let go to
 * check that a late finisher cannot overwrite the settled package or leak its file.
 */
function wrapStorage(real: FileStorage, overrides: Partial<FileStorage>): FileStorage {
  return {
    put: (data, opts) => real.put(data, opts),
    putStream: (data, opts) => real.putStream(data, opts),
    read: (key) => real.read(key),
    createReadStream: (key, range) => real.createReadStream(key, range),
    stat: (key) => real.stat(key),
    list: () => real.list(),
    delete: (key, opts) => real.delete(key, opts),
    ping: () => real.ping(),
    ...overrides,
  };
}

function stalledStorage(real: FileStorage) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const started = new Promise<void>((r) => (entered = r));
  let stored: StoredFile | undefined;
  const storage = wrapStorage(real, {
    async putStream(data: Readable, opts) {
      entered();
      await gate;
      stored = await real.putStream(data, opts);
      return stored;
    },
  });
  return { storage, started, release, stored: () => stored };
}

const run = (ctx: AppContext, id: number, attempt: number) => packageBuildJob.run(ctx, id, { attempt, signal: new AbortController().signal });

describe('package build after a lost worker', () => {
  // The job and the storage are the subject, not HTTP: services on a database, no server.
  let world: TestWorld;
  let admin: AuthUser;
  let ws: number;
  let productId: number;
  let userId: number;

  beforeAll(async () => {
    world = await startTestWorld({ worker: false });
    admin = await world.admin();
    ws = admin.workspaceId;
    productId = await seedProduct(world, ws);
    userId = admin.userId;
  });
  afterAll(async () => world?.close());

  const packageRow = (id: number) => world.ctx.db.selectFrom('delivery_packages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  async function queuedPackage() {
    const taskId = await seedTask(world, { workspaceId: ws, productId, operatorId: userId, status: 'approved' });
    const task = { id: taskId, workspaceId: ws };
    // A title of its own: packages with identical bytes would share one content-addressed file.
    await seedText(world, task, { strategy: 'A', selected: true, title: `标题 ${taskId}` });
    const images = [];
    for (let seq = 1; seq <= 3; seq++) {
      images.push(await seedImage(world, task, { strategy: 'A', seq, selected: true, data: await imageBytes({ color: `#${seq}0${seq}0${seq}0`, width: 600, height: 800 }) }));
    }
    const id = (await createPackage(world.ctx, admin, taskId, undefined)).delivery_package_id;
    const job = await world.ctx.db.selectFrom('jobs').select(['kind', 'ref_id', 'status']).where('kind', '=', 'package.build').where('ref_id', '=', id).executeTakeFirst();
    expect(job).toEqual({ kind: 'package.build', ref_id: id, status: 'queued' });
    return { id, images };
  }

  it('a retry finishes the package; the stalled attempt, let go later, changes nothing', async () => {
    const { id } = await queuedPackage();
    const stalled = stalledStorage(world.ctx.storage);
    const first = run({ ...world.ctx, storage: stalled.storage }, id, 1);
    await stalled.started;
    expect((await packageRow(id)).status).toBe('pending');

    await run(world.ctx, id, 2);
    const ready = await packageRow(id);
    expect(ready.status).toBe('ready');

    stalled.release();
    await first;
    const after = await packageRow(id);
    expect(after).toEqual(ready);
    // Same content, same entry times: the late attempt wrote the very same (content-addressed) file.
    expect(stalled.stored()?.key).toBe(ready.file_key);
    const zip = await readZip(await world.ctx.storage.read(ready.file_key!));
    expect(zip.map((e) => e.name)).toEqual(['note_01_A/01_main.jpg', 'note_01_A/02_main.jpg', 'note_01_A/03_main.jpg', 'note_01_A/note.txt']);

    // Running the job once more (at-least-once delivery) leaves the ready package alone.
    await run(world.ctx, id, 3);
    expect(await packageRow(id)).toEqual(ready);
  });

  it('a late attempt with different content leaves its file to the unused-file sweep and keeps the winner', async () => {
    const { id, images } = await queuedPackage();
    const stalled = stalledStorage(world.ctx.storage);
    const first = run({ ...world.ctx, storage: stalled.storage }, id, 1);
    await stalled.started;
    // The selection changes between the attempts, so the two zips differ.
    await world.ctx.db.updateTable('image_candidates').set({ is_selected: false }).where('id', '=', images[2]!.id).execute();
    await run(world.ctx, id, 2);
    const ready = await packageRow(id);
    expect(ready.status).toBe('ready');

    stalled.release();
    await first;
    expect(await packageRow(id)).toEqual(ready);
    const lateKey = stalled.stored()?.key;
    expect(lateKey).toBeDefined();
    expect(lateKey).not.toBe(ready.file_key);
    expect(await world.ctx.storage.stat(lateKey!)).toBeDefined();
    // No grace period: every file is old enough to go if no row uses it.
    expect((await sweepUnusedFiles(world.ctx, 0)).deleted).toContain(lateKey);
    expect(await world.ctx.storage.stat(lateKey!)).toBeUndefined();
    expect(await world.ctx.storage.stat(ready.file_key!)).toBeDefined();
    const names = (await readZip(await world.ctx.storage.read(ready.file_key!))).map((e) => e.name);
    expect(names).toEqual(['note_01_A/01_main.jpg', 'note_01_A/02_main.jpg', 'note_01_A/note.txt']);
  });

  it('marks a package failed once its attempts run out, but never a finished one', async () => {
    const { id } = await queuedPackage();
    await packageBuildJob.onFailed(world.ctx, id, 'the package could not be built (internal error); create it again');
    const failed = await packageRow(id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe('the package could not be built (internal error); create it again');
    await run(world.ctx, id, 4);
    expect((await packageRow(id)).status).toBe('failed');

    const other = await queuedPackage();
    await run(world.ctx, other.id, 1);
    await packageBuildJob.onFailed(world.ctx, other.id, 'late');
    expect((await packageRow(other.id)).status).toBe('ready');
  });

  it('hides internal error details: an unexpected failure is retried with a generic reason', async () => {
    const { id } = await queuedPackage();
    const broken = wrapStorage(world.ctx.storage, { putStream: () => Promise.reject(new Error('EIO: disk /srv/secret/path failed')) });
    const err = await run({ ...world.ctx, storage: broken }, id, 1).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).not.toContain('/srv/secret');
    expect((await packageRow(id)).status).toBe('pending');
    await run(world.ctx, id, 2);
    expect((await packageRow(id)).status).toBe('ready');
  });
});
