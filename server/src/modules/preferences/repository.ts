import type { DbOrTx } from '../../db/database.js';
import { json } from '../../db/codec.js';
import type { PreferenceContext } from '../../db/schema.js';

const signalColumns = [
  'id',
  'task_id',
  'user_id',
  'candidate_id',
  'candidate_kind',
  'strategy',
  'angle_label',
  'signal_type',
  'weight',
  'reason',
  'excerpt',
  'created_at',
] as const;

/** Signals of one product since `since`, newest first, capped so a busy product stays cheap. */
export function recentSignals(db: DbOrTx, workspaceId: number, productId: number, since: string, limit: number) {
  return db
    .selectFrom('preference_signals')
    .select(signalColumns)
    .where('workspace_id', '=', workspaceId)
    .where('product_id', '=', productId)
    .where('created_at', '>=', since)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export function taskSignals(db: DbOrTx, workspaceId: number, taskId: number, page: { offset: number; limit: number }) {
  const base = db.selectFrom('preference_signals').where('workspace_id', '=', workspaceId).where('task_id', '=', taskId);
  return Promise.all([
    base.select(signalColumns).orderBy('id', 'asc').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow().then((r) => Number(r.n)),
  ]);
}

export function findTask(db: DbOrTx, workspaceId: number, taskId: number) {
  return db
    .selectFrom('tasks')
    .select(['id', 'product_id', 'generation'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', taskId)
    .executeTakeFirst();
}

export function productExists(db: DbOrTx, workspaceId: number, productId: number) {
  return db
    .selectFrom('products')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', productId)
    .executeTakeFirst()
    .then((r) => r !== undefined);
}

/** Snapshots carry no workspace column: their task must be of the workspace. */
const taskOf = (db: DbOrTx, workspaceId: number, taskId: number) =>
  db.selectFrom('tasks').select('id').where('workspace_id', '=', workspaceId).where('id', '=', taskId);

export function latestSnapshot(db: DbOrTx, workspaceId: number, taskId: number) {
  return db
    .selectFrom('preference_snapshots')
    .select(['generation', 'context', 'created_at'])
    .where('task_id', 'in', taskOf(db, workspaceId, taskId))
    .orderBy('generation', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export function findSnapshot(db: DbOrTx, workspaceId: number, taskId: number, generation: number) {
  return db
    .selectFrom('preference_snapshots')
    .select(['generation', 'context'])
    .where('task_id', 'in', taskOf(db, workspaceId, taskId))
    .where('generation', '=', generation)
    .executeTakeFirst();
}

/** First writer wins: a retried generation keeps the context its first attempt was given. */
export async function insertSnapshot(db: DbOrTx, taskId: number, generation: number, context: PreferenceContext, at: string) {
  await db
    .insertInto('preference_snapshots')
    .values({ task_id: taskId, generation, context: json(context), created_at: at })
    .onConflict((oc) => oc.columns(['task_id', 'generation']).doNothing())
    .execute();
}
