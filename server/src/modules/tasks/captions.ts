import type { AppContext } from '../../context.js';
import { taskCoverTemplate } from '../../content/cover.js';
import { NOTE_LIMITS } from '../../content/limits.js';
import { length } from '../../content/text.js';
import { nowIso } from '../../db/codec.js';
import type { AuthUser } from '../../http/auth.js';
import { fail } from '../../http/errors.js';
import { bannedWordMatcherFor } from '../banned-words/service.js';
import { isCover, originalOf, recaptioned } from '../notes/service.js';
import { runTaskAction } from './lifecycle.js';
import * as repo from './repository.js';
import { imageCandidateView } from './views.js';

/**
 * The operator's caption of one slide (contract-decisions §8 and §9): `PATCH
 * /tasks/{id}/image-candidates/{candidate_id}` `{caption}`, at most NOTE_LIMITS.caption graphemes,
 * held to the banned words of the task's product like every line printed on a picture (a
 * hard-blocked word refused with 422, auto-fix words replaced, warnings the operator's call, as
 * in a text edit), and lettered from the slide's original. `""` removes it. A cover is not a
 * slide: it carries its set's cover title.
 */
export async function editImageCaption(ctx: AppContext, auth: AuthUser, taskId: number, candidateId: number, caption: string) {
  const task = await repo.findTask(ctx.db, auth.workspaceId, taskId);
  if (!task) throw fail('task.not_found');
  const image = await repo.findImageCandidate(ctx.db, auth.workspaceId, taskId, candidateId);
  if (!image) throw fail('image.not_found');
  const line = caption.replace(/\s+/g, ' ').trim();
  if (length(line) > NOTE_LIMITS.caption) throw fail('validation.too_long', { field: 'body.caption', max: NOTE_LIMITS.caption });
  const checked = (await bannedWordMatcherFor(ctx, auth.workspaceId, task.product_id)).check(line);
  if (checked.status === 'hard_block') {
    throw fail('image.caption_hard_blocked', { words: [...new Set(checked.hits.filter((h) => h.level === 'hard_block').map((h) => h.word))] });
  }
  if (isCover(image)) throw fail('image.caption_on_cover');
  if (!task.overlay_text) throw fail('image.caption_not_lettered');
  if (image.status !== 'done') throw fail('image.caption_not_done');
  const original = originalOf(image);
  if (!original) throw fail('image.caption_no_original');
  // Drawn before the action: its transaction (SQLite's only connection) holds no image work.
  const changes = await recaptioned(ctx, image, original, checked.text || null, taskCoverTemplate(task.id, image.strategy));

  return runTaskAction(ctx, auth, taskId, 'edit', async (trx, _task, now) => {
    const current = await repo.findImageCandidate(trx, auth.workspaceId, taskId, candidateId);
    if (!current) throw fail('image.not_found');
    if (current.file_key !== image.file_key) throw fail('image.caption_race');
    const row = changes ? await repo.updateImageCandidate(trx, auth.workspaceId, current.id, { ...changes, updated_at: nowIso(now) }) : current;
    const view = imageCandidateView(ctx, row!);
    return { result: view, events: changes ? [{ name: 'image_candidate', data: view }] : [] };
  });
}
