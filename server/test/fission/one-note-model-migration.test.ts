import { describe, expect, it } from 'vitest';
import { databaseBefore } from '../helpers/migration.js';

const decode = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : v);
const iso = (v: unknown) => new Date(v as string).toISOString();

/**
 * Migration 20261128_0500_one_note_model on a database holding both kinds of note: a task's text
 * (linked from a package) with its image, and a fission's two notes with made, failed and queued
 * images and retry jobs naming the notes. Every field must come through, both ways.
 */
describe('migration 20261128_0500_one_note_model', () => {
  it('moves fission notes and images into the note tables without loss, leaves task notes and their links alone, and goes back down', async () => {
    const { db, migrator, now, workspaceId, userId, taskId, close } = await databaseBefore('20261128_0400_link_tables', { image_count: 2 });
    try {
      const taskText = await db
        .insertInto('text_candidates')
        .values({
          workspace_id: workspaceId, task_id: taskId, generation: 1, slot: 0, strategy: 'A', angle_label: 'a', title: '任务标题', content: '任务正文', tags: '["t"]',
          cover_title: '任务封面', image_brief: 'b', source: 'ai', score: '{"total":70}', score_total: 70, banned_word_status: 'pass', banned_hits: '[]',
          is_selected: true, verdict: 'v', summary: 's', edited: false, created_at: now, updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const taskImage = await db
        .insertInto('image_candidates')
        .values({ workspace_id: workspaceId, task_id: taskId, generation: 1, strategy: 'A', role: 'hook', seq: 1, file_key: `${'c'.repeat(64)}.png`, mime: 'image/png', prompt: 'p', created_at: now, updated_at: now, overlay: 'null' })
        .returning('id')
        .executeTakeFirstOrThrow();
      const pkg = await db
        .insertInto('delivery_packages')
        .values({ workspace_id: workspaceId, task_id: taskId, created_by: userId, status: 'pending', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db.insertInto('package_notes').values({ workspace_id: workspaceId, package_id: pkg.id, text_candidate_id: taskText.id, position: 0 }).execute();

      const fission = await db
        .insertInto('fission_tasks')
        .values({ workspace_id: workspaceId, source_task_id: taskId, operator_id: userId, reference_level: 'mid', fanout_count: 2, status: 'completed', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const note1Json = {
        angle_label: '角度一', title: '标题一', content: '正文一', tags: ['面霜', '补水'], cover_title: '封面一', image_brief: '图一',
        image_plan: [{ role: 'hook', brief: '封面镜头' }, { role: 'pain', brief: '痛点镜头' }],
        _score: { total: 86, title: 18, emotion: 17, selling: 17, keyword: 17, compliance: 17, verdict: '好', summary: '不错' },
        _passed: true,
        _block: { status: 'soft_warn', hits: [{ word: '神器', level: 'soft_warn', start: 3, end: 5 }] },
      };
      const note2Json = {
        angle_label: '角度二', title: '标题二', content: '正文二', tags: [], cover_title: '封面二', image_brief: '图二', image_plan: [{ role: 'hook', brief: '镜头' }],
        _score: { total: 62, title: 12, emotion: 12, selling: 13, keyword: 12, compliance: 13, verdict: '差', summary: '需要改' },
        _passed: false,
        _block: { status: 'pass', hits: [] },
      };
      const insertNote = (seq: number, note: object, score: number, status: string, dimension: string, at: string) =>
        db
          .insertInto('fission_notes')
          .values({ workspace_id: workspaceId, fission_id: fission.id, seq, note: JSON.stringify(note), score, passed: score >= 80, needs_optimization: score < 80, dimension, status, created_at: at, updated_at: at })
          .returning('id')
          .executeTakeFirstOrThrow()
          .then((r) => r.id as number);
      const later = '2026-11-27T10:00:00.000Z';
      const n1 = await insertNote(1, note1Json, 86, 'image_done', '情绪', now);
      const n2 = await insertNote(2, note2Json, 62, 'failed', '结构', later);
      const cover = { kind: 'cover', text: '封面一' };
      const images = [
        { note_id: n1, seq: 1, role: 'hook', strategy: 'B', brief: '封面 brief', overlay: cover, status: 'done', file_key: `${'a'.repeat(64)}.jpg`, mime: 'image/jpeg', raw_file_key: `${'b'.repeat(64)}.png`, raw_mime: 'image/png', lettered_title: '封面一', error: null, error_kind: null },
        { note_id: n1, seq: 2, role: 'pain', strategy: 'B', brief: '痛点 brief', overlay: null, status: 'failed', file_key: null, mime: null, raw_file_key: null, raw_mime: null, lettered_title: null, error: 'pain image failed: timeout', error_kind: 'timeout' },
        { note_id: n2, seq: 1, role: 'hook', strategy: 'C', brief: '镜头 brief', overlay: { kind: 'cover', text: '封面二' }, status: 'retrying', file_key: null, mime: null, raw_file_key: null, raw_mime: null, lettered_title: null, error: null, error_kind: null },
      ];
      for (const image of images) {
        await db.insertInto('fission_images').values({ ...image, workspace_id: workspaceId, fission_id: fission.id, overlay: JSON.stringify(image.overlay), created_at: now, updated_at: later }).execute();
      }
      // Retry jobs name notes by id; the moved notes get new ids, which may be ids the old notes had.
      for (const ref of [n1, n2]) {
        await db.insertInto('jobs').values({ kind: 'fission.retry-images', ref_id: ref, status: 'queued', attempts: 0, run_after: now, created_at: now, updated_at: now }).execute();
      }
      await db.insertInto('jobs').values({ kind: 'task.images', ref_id: n1, status: 'queued', attempts: 0, run_after: now, created_at: now, updated_at: now }).execute();

      expect((await migrator.migrateTo('20261128_0500_one_note_model')).error).toBeUndefined();

      const texts = await db.selectFrom('text_candidates').selectAll().orderBy('id').execute();
      expect(texts.map((t) => [t.id, t.task_id, t.fission_id, t.title])).toEqual([
        [taskText.id, taskId, null, '任务标题'],
        [expect.any(Number), null, fission.id, '标题一'],
        [expect.any(Number), null, fission.id, '标题二'],
      ]);
      const [, m1, m2] = texts;
      const noteColumns = (t: any) => ({
        slot: t.slot, generation: t.generation, strategy: t.strategy, angle_label: t.angle_label, title: t.title, content: t.content, tags: decode(t.tags), cover_title: t.cover_title,
        image_brief: t.image_brief, source: t.source, score: decode(t.score), score_total: Number(t.score_total), verdict: t.verdict, summary: t.summary,
        banned_word_status: t.banned_word_status, banned_hits: decode(t.banned_hits), is_selected: Boolean(t.is_selected), edited: Boolean(t.edited),
        dimension: t.dimension, image_plan: decode(t.image_plan), image_status: t.image_status, created_at: iso(t.created_at), updated_at: iso(t.updated_at),
      });
      expect(noteColumns(m1)).toEqual({
        slot: 0, generation: 1, strategy: 'B', angle_label: '角度一', title: '标题一', content: '正文一', tags: ['面霜', '补水'], cover_title: '封面一', image_brief: '图一', source: 'ai',
        score: { total: 86, title: 18, emotion: 17, selling: 17, keyword: 17, compliance: 17 }, score_total: 86, verdict: '好', summary: '不错',
        banned_word_status: 'soft_warn', banned_hits: [{ word: '神器', level: 'soft_warn', start: 3, end: 5 }], is_selected: false, edited: false,
        dimension: '情绪', image_plan: [{ role: 'hook', brief: '封面镜头' }, { role: 'pain', brief: '痛点镜头' }], image_status: 'image_done', created_at: iso(now), updated_at: iso(now),
      });
      expect(noteColumns(m2)).toMatchObject({
        slot: 1, strategy: 'C', tags: [], score_total: 62, verdict: '差', summary: '需要改', banned_word_status: 'pass', banned_hits: [], dimension: '结构', image_status: 'failed', created_at: later,
      });

      const moved = await db.selectFrom('image_candidates').selectAll().where('fission_id', '=', fission.id).orderBy('id').execute();
      expect(
        moved.map((i) => ({
          note_id: i.note_id, task_id: i.task_id, seq: i.seq, role: i.role, strategy: i.strategy, brief: i.brief, overlay: decode(i.overlay), status: i.status, file_key: i.file_key, mime: i.mime,
          raw_file_key: i.raw_file_key, raw_mime: i.raw_mime, lettered_title: i.lettered_title, error: i.error, error_kind: i.error_kind, variant: i.variant, updated_at: iso(i.updated_at),
        })),
      ).toEqual([
        { note_id: m1!.id, task_id: null, seq: 1, role: 'hook', strategy: 'B', brief: '封面 brief', overlay: cover, status: 'done', file_key: `${'a'.repeat(64)}.jpg`, mime: 'image/jpeg', raw_file_key: `${'b'.repeat(64)}.png`, raw_mime: 'image/png', lettered_title: '封面一', error: null, error_kind: null, variant: 0, updated_at: later },
        { note_id: m1!.id, task_id: null, seq: 2, role: 'pain', strategy: 'B', brief: '痛点 brief', overlay: null, status: 'failed', file_key: null, mime: null, raw_file_key: null, raw_mime: null, lettered_title: null, error: 'pain image failed: timeout', error_kind: 'timeout', variant: 0, updated_at: later },
        { note_id: m2!.id, task_id: null, seq: 1, role: 'hook', strategy: 'C', brief: '镜头 brief', overlay: { kind: 'cover', text: '封面二' }, status: 'retrying', file_key: null, mime: null, raw_file_key: null, raw_mime: null, lettered_title: null, error: null, error_kind: null, variant: 0, updated_at: later },
      ]);
      // The task's own rows and the package's link survived the tables' rebuild.
      expect((await db.selectFrom('image_candidates').select(['id', 'task_id', 'file_key']).where('task_id', '=', taskId).execute())).toEqual([{ id: taskImage.id, task_id: taskId, file_key: `${'c'.repeat(64)}.png` }]);
      expect(await db.selectFrom('package_notes').select(['package_id', 'text_candidate_id']).execute()).toEqual([{ package_id: pkg.id, text_candidate_id: taskText.id }]);
      const jobs = await db.selectFrom('jobs').select(['kind', 'ref_id']).orderBy('id').execute();
      expect(jobs.map((j) => [j.kind, Number(j.ref_id)])).toEqual([['fission.retry-images', m1!.id], ['fission.retry-images', m2!.id], ['task.images', n1]]);
      await expect(db.selectFrom('fission_notes').selectAll().execute()).rejects.toThrow();
      // A note has exactly one origin.
      const orphan = { workspace_id: workspaceId, generation: 1, slot: 5, angle_label: 'a', title: 't', content: 'c', tags: '[]', cover_title: 'c', image_brief: 'b', source: 'ai', score: '{}', score_total: 0, banned_word_status: 'pass', banned_hits: '[]', is_selected: false, verdict: '', summary: '', edited: false, created_at: now, updated_at: now };
      await expect(db.insertInto('text_candidates').values({ ...orphan, task_id: null, fission_id: null }).execute()).rejects.toThrow();
      await expect(db.insertInto('text_candidates').values({ ...orphan, task_id: taskId, fission_id: fission.id }).execute()).rejects.toThrow();

      expect((await migrator.migrateTo('20261128_0400_link_tables')).error).toBeUndefined();
      const back = await db.selectFrom('fission_notes').selectAll().orderBy('seq').execute();
      expect(back.map((n) => ({ seq: n.seq, note: decode(n.note), score: Number(n.score), passed: Boolean(n.passed), needs_optimization: Boolean(n.needs_optimization), dimension: n.dimension, status: n.status, created_at: iso(n.created_at) }))).toEqual([
        { seq: 1, note: note1Json, score: 86, passed: true, needs_optimization: false, dimension: '情绪', status: 'image_done', created_at: iso(now) },
        { seq: 2, note: note2Json, score: 62, passed: false, needs_optimization: true, dimension: '结构', status: 'failed', created_at: later },
      ]);
      const backImages = await db.selectFrom('fission_images').selectAll().orderBy('id').execute();
      expect(backImages.map((i) => ({ ...i, id: undefined, workspace_id: undefined, fission_id: undefined, created_at: undefined, updated_at: iso(i.updated_at), overlay: decode(i.overlay) }))).toEqual(
        images.map((image) => ({ ...image, note_id: image.note_id === n1 ? back[0]!.id : back[1]!.id, id: undefined, workspace_id: undefined, fission_id: undefined, created_at: undefined, updated_at: later })),
      );
      expect((await db.selectFrom('text_candidates').select('id').execute()).map((t) => t.id)).toEqual([taskText.id]);
      expect(await db.selectFrom('package_notes').select(['package_id', 'text_candidate_id']).execute()).toEqual([{ package_id: pkg.id, text_candidate_id: taskText.id }]);
      const jobsBack = await db.selectFrom('jobs').select('ref_id').where('kind', '=', 'fission.retry-images').orderBy('id').execute();
      expect(jobsBack.map((j) => Number(j.ref_id))).toEqual([back[0]!.id, back[1]!.id]);
    } finally {
      await close();
    }
  });
});
