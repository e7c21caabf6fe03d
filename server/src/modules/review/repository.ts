import type { DbOrTx } from '../../db/database.js';
import type { NewRow, ReviewedText } from '../../db/schema.js';

export function taskExists(db: DbOrTx, workspaceId: number, id: number) {
  return db
    .selectFrom('tasks')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst()
    .then((r) => r !== undefined);
}

export async function insertReview(db: DbOrTx, row: NewRow<'reviews'>) {
  await db.insertInto('reviews').values(row).execute();
}

/** Selected texts of tasks, best score first (the review queue's `selected_text` is the first). */
export function selectedTexts(db: DbOrTx, workspaceId: number, taskIds: number[]) {
  if (taskIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('text_candidates')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('task_id', 'in', taskIds)
    .where('is_selected', '=', true)
    .orderBy('score_total', 'desc')
    .orderBy('id', 'asc')
    .execute();
}

export function selectedImages(db: DbOrTx, workspaceId: number, taskIds: number[]) {
  if (taskIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('image_candidates')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('task_id', 'in', taskIds)
    .where('is_selected', '=', true)
    .where('status', '=', 'done')
    .orderBy('seq', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

/** Which strategy sets each task has candidates in. */
export async function taskSets(db: DbOrTx, workspaceId: number, taskIds: number[]) {
  if (taskIds.length === 0) return [];
  const [texts, images] = await Promise.all([
    db
      .selectFrom('text_candidates')
      .select(['task_id', 'strategy'])
      .distinct()
      .where('workspace_id', '=', workspaceId)
      .where('task_id', 'in', taskIds)
      .where('strategy', 'is not', null)
      .execute(),
    db
      .selectFrom('image_candidates')
      .select(['task_id', 'strategy'])
      .distinct()
      .where('workspace_id', '=', workspaceId)
      .where('task_id', 'in', taskIds)
      .execute(),
  ]);
  return [...texts, ...images] as Array<{ task_id: number; strategy: string }>;
}

export function reviewQueue(db: DbOrTx, workspaceId: number, page: { offset: number; limit: number }) {
  const base = db.selectFrom('tasks').where('tasks.workspace_id', '=', workspaceId).where('tasks.status', '=', 'pending_review');
  return Promise.all([
    base
      .innerJoin('products', 'products.id', 'tasks.product_id')
      // The submitting operator; the task's operator for rows submitted before submitted_by existed.
      .innerJoin('users', (j) => j.on((eb) => eb('users.id', '=', eb.fn.coalesce('tasks.submitted_by', 'tasks.operator_id'))))
      .select(['tasks.id', 'tasks.theme', 'tasks.submitted_at', 'tasks.created_at', 'products.name as product_name', 'users.username as operator_name', 'tasks.providers'])
      // Rows that reached pending_review without a recorded submission sort by creation time.
      .orderBy((eb) => eb.fn.coalesce('tasks.submitted_at', 'tasks.created_at'), 'asc')
      .orderBy('tasks.id', 'asc')
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow().then((r) => Number(r.n)),
  ]);
}

export function reviewHistory(db: DbOrTx, workspaceId: number, taskId: number, page: { offset: number; limit: number }) {
  const base = db.selectFrom('reviews').where('reviews.workspace_id', '=', workspaceId).where('reviews.task_id', '=', taskId);
  return Promise.all([
    base
      .innerJoin('users', 'users.id', 'reviews.user_id')
      .select(['reviews.id', 'reviews.action', 'reviews.user_id', 'users.username', 'reviews.reason', 'reviews.final', 'reviews.created_at'])
      .orderBy('reviews.id', 'asc')
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow().then((r) => Number(r.n)),
  ]);
}

/**
 * What a reviewer reads beside each queued task: the note of its latest submission, its latest
 * rejection before it (reason, reviewer, when, the texts rejected), and its open comments.
 */
export async function reviewContexts(db: DbOrTx, workspaceId: number, taskIds: number[]) {
  const out = new Map<number, { submitNote: string | null; rejection: { reason: string | null; final: boolean; username: string; created_at: string; texts: ReviewedText[] } | null; openComments: number }>();
  if (taskIds.length === 0) return out;
  const [reviews, comments] = await Promise.all([
    db
      .selectFrom('reviews')
      .innerJoin('users', 'users.id', 'reviews.user_id')
      .select(['reviews.task_id', 'reviews.action', 'reviews.note', 'reviews.reason', 'reviews.final', 'reviews.texts', 'reviews.created_at', 'users.username'])
      .where('reviews.workspace_id', '=', workspaceId)
      .where('reviews.task_id', 'in', taskIds)
      .orderBy('reviews.id', 'desc')
      .execute(),
    db
      .selectFrom('review_comments')
      .select(['task_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('workspace_id', '=', workspaceId)
      .where('task_id', 'in', taskIds)
      .where('resolved_at', 'is', null)
      .groupBy('task_id')
      .execute(),
  ]);
  for (const id of taskIds) {
    const mine = reviews.filter((r) => r.task_id === id);
    const submit = mine.find((r) => r.action === 'submit');
    const rejection = mine.find((r) => r.action === 'reject');
    out.set(id, {
      submitNote: submit?.note ?? null,
      rejection: rejection ? { reason: rejection.reason, final: Boolean(rejection.final), username: rejection.username, created_at: rejection.created_at, texts: rejection.texts ?? [] } : null,
      openComments: Number(comments.find((c) => c.task_id === id)?.n ?? 0),
    });
  }
  return out;
}
