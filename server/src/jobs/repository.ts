import type { Db, Dialect } from '../db/database.js';
import type { JobKind, LeasedTable, QueueCounts } from './types.js';

/**
 * The durable queue of the in-process backend (`jobs` table) and the records the worker leases
 * and the stale-work sweeper watches. Job rows are identified by (id, attempts): every claim
 * bumps `attempts`, so a worker that lost its lease can no longer renew, finish or fail the row.
 */

export interface ClaimedJob {
  id: number;
  kind: string;
  ref_id: number;
  attempts: number;
}

const LIVE = ['queued', 'running'] as const;

/** The kinds a worker of one lane claims: `only` these, or all `except` those (the `work` lane takes unknown kinds too). */
export interface KindFilter {
  only?: readonly string[];
  except?: readonly string[];
}

/** Adds a job unless one for the same work is already waiting (a running one gets a follow-up). */
export async function insertJob(db: Db, kind: JobKind, refId: number, nowIso: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const waiting = await trx
      .selectFrom('jobs')
      .select('id')
      .where('kind', '=', kind)
      .where('ref_id', '=', refId)
      .where('status', '=', 'queued')
      .executeTakeFirst();
    if (waiting) return;
    await trx
      .insertInto('jobs')
      .values({ kind, ref_id: refId, status: 'queued', attempts: 0, run_after: nowIso, created_at: nowIso, updated_at: nowIso })
      .execute();
  });
}

/**
 * Takes the next due job: a queued one whose time has come, or a running one whose worker let
 * its lease lapse (crashed). A job whose work already runs elsewhere under a live lease waits,
 * so one record is never worked on by two runs at once. PostgreSQL workers skip rows another
 * worker is claiming; SQLite's single writer makes the statement atomic by itself.
 */
export async function claimNextJob(
  db: Db,
  dialect: Dialect,
  nowIso: string,
  lockedUntilIso: string,
  kinds: KindFilter = {},
): Promise<ClaimedJob | undefined> {
  const due = db
    .selectFrom('jobs as j')
    .select('j.id')
    .$if(kinds.only !== undefined, (qb) => qb.where('j.kind', 'in', kinds.only!))
    .$if((kinds.except?.length ?? 0) > 0, (qb) => qb.where('j.kind', 'not in', kinds.except!))
    .where((eb) =>
      eb.or([
        eb.and([eb('j.status', '=', 'queued'), eb('j.run_after', '<=', nowIso)]),
        eb.and([eb('j.status', '=', 'running'), eb('j.locked_until', '<', nowIso)]),
      ]),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('jobs as r')
            .select('r.id')
            .whereRef('r.kind', '=', 'j.kind')
            .whereRef('r.ref_id', '=', 'j.ref_id')
            .whereRef('r.id', '<>', 'j.id')
            .where('r.status', '=', 'running')
            .where('r.locked_until', '>=', nowIso),
        ),
      ),
    )
    .orderBy('j.run_after')
    .orderBy('j.id')
    .limit(1);
  // An idle poll stays a plain read: on SQLite even an UPDATE that matches nothing takes the
  // database's write lock, which API requests would then queue behind.
  if (!(await due.executeTakeFirst())) return undefined;
  return db
    .updateTable('jobs')
    .set((eb) => ({ status: 'running', attempts: eb('attempts', '+', 1), locked_until: lockedUntilIso, updated_at: nowIso }))
    .where('id', '=', due.$if(dialect === 'postgres', (qb) => qb.forUpdate().skipLocked()))
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'queued'), eb('run_after', '<=', nowIso)]),
        eb.and([eb('status', '=', 'running'), eb('locked_until', '<', nowIso)]),
      ]),
    )
    .returning(['id', 'kind', 'ref_id', 'attempts'])
    .executeTakeFirst();
}

function ownRow(db: Db, job: ClaimedJob) {
  return db.updateTable('jobs').where('id', '=', job.id).where('attempts', '=', job.attempts).where('status', '=', 'running');
}

/** False when the lease was lost (another worker re-claimed the job). */
export async function renewJobLease(db: Db, job: ClaimedJob, lockedUntilIso: string, nowIso: string): Promise<boolean> {
  const result = await ownRow(db, job).set({ locked_until: lockedUntilIso, updated_at: nowIso }).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Finished jobs leave the table: it is a queue, not a history (failed ones stay, with their error). */
export async function deleteFinishedJob(db: Db, job: ClaimedJob): Promise<void> {
  await db.deleteFrom('jobs').where('id', '=', job.id).where('attempts', '=', job.attempts).where('status', '=', 'running').execute();
}

export async function scheduleJobRetry(db: Db, job: ClaimedJob, runAfterIso: string, error: string, nowIso: string): Promise<void> {
  await ownRow(db, job).set({ status: 'queued', run_after: runAfterIso, locked_until: null, last_error: error, updated_at: nowIso }).execute();
}

export async function markJobFailed(db: Db, job: ClaimedJob, error: string, nowIso: string): Promise<void> {
  await ownRow(db, job).set({ status: 'failed', locked_until: null, last_error: error, updated_at: nowIso }).execute();
}

/**
 * Hands a job back without counting the run as an attempt: at shutdown, or when its record is
 * busy with another run (then it comes back at `runAfterIso`).
 */
export async function releaseJob(db: Db, job: ClaimedJob, nowIso: string, runAfterIso: string = nowIso): Promise<void> {
  await ownRow(db, job)
    .set((eb) => ({ status: 'queued', attempts: eb('attempts', '-', 1), run_after: runAfterIso, locked_until: null, updated_at: nowIso }))
    .execute();
}

export async function hasLiveJobRow(db: Db, kind: JobKind, refId: number): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', kind)
    .where('ref_id', '=', refId)
    .where('status', 'in', LIVE)
    .executeTakeFirst();
  return row !== undefined;
}

export async function countJobs(db: Db, nowIso: string): Promise<QueueCounts> {
  const rows = await db
    .selectFrom('jobs')
    .select((eb) => [
      eb.fn.countAll<number>().filterWhere((w) => w.and([w('status', '=', 'queued'), w('run_after', '<=', nowIso)])).as('waiting'),
      eb.fn.countAll<number>().filterWhere((w) => w.and([w('status', '=', 'queued'), w('run_after', '>', nowIso)])).as('delayed'),
      eb.fn.countAll<number>().filterWhere('status', '=', 'running').as('running'),
      eb.fn.countAll<number>().filterWhere('status', '=', 'failed').as('failed'),
    ])
    .executeTakeFirstOrThrow();
  return { waiting: Number(rows.waiting), delayed: Number(rows.delayed), running: Number(rows.running), failed: Number(rows.failed) };
}

/**
 * Record leases (`lease_until`, on the table the job kind declares): a run takes its record's
 * lease before it starts and keeps it ahead while it runs, so no two runs ever work on one
 * record at once, whatever the queue does (a stalled job handed out again, a sweeper's resume
 * racing a live run), and the sweeper can tell live work from work whose worker vanished. The
 * lease value itself is the owner's token: renewing and dropping are conditional on it.
 */

/** `taken`, `held` by a live run elsewhere, `absent` (no such record), or `unleased` (kind without a lease). */
export async function takeRecordLease(db: Db, table: LeasedTable | undefined, refId: number, leaseUntilIso: string, nowIso: string): Promise<'taken' | 'held' | 'absent' | 'unleased'> {
  if (!table) return 'unleased';
  const taken = await db
    .updateTable(table)
    .set({ lease_until: leaseUntilIso })
    .where('id', '=', refId)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', nowIso)]))
    .executeTakeFirst();
  if (taken.numUpdatedRows > 0n) return 'taken';
  const row = await db.selectFrom(table).select('id').where('id', '=', refId).executeTakeFirst();
  return row ? 'held' : 'absent';
}

/** False when the lease is no longer ours (it lapsed and another run took the record). */
export async function renewRecordLease(db: Db, table: LeasedTable | undefined, refId: number, currentIso: string, nextIso: string): Promise<boolean> {
  if (!table) return true;
  const result = await db.updateTable(table).set({ lease_until: nextIso }).where('id', '=', refId).where('lease_until', '=', currentIso).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function dropRecordLease(db: Db, table: LeasedTable | undefined, refId: number, currentIso: string): Promise<void> {
  if (!table) return;
  await db.updateTable(table).set({ lease_until: null }).where('id', '=', refId).where('lease_until', '=', currentIso).execute();
}

/**
 * Counts one resume of a record's work, unless another sweeper did so since `sweptBeforeIso`
 * (then undefined: leave it to that one). Resumes older than `windowStartIso` are forgotten, so
 * a record that ran fine for a while starts afresh, yet work that keeps stalling (even work whose
 * handler returns without settling it) reaches the bound. Returns the count including this one.
 */
export async function countResume(
  db: Db,
  kind: JobKind,
  refId: number,
  times: { nowIso: string; sweptBeforeIso: string; windowStartIso: string },
): Promise<number | undefined> {
  await db
    .insertInto('job_resumes')
    .values({ kind, ref_id: refId, resumes: 0, swept_at: new Date(0).toISOString() })
    .onConflict((oc) => oc.columns(['kind', 'ref_id']).doNothing())
    .execute();
  const row = await db
    .updateTable('job_resumes')
    .set((eb) => ({
      resumes: eb.case().when('swept_at', '<', times.windowStartIso).then(1).else(eb('resumes', '+', 1)).end(),
      swept_at: times.nowIso,
    }))
    .where('kind', '=', kind)
    .where('ref_id', '=', refId)
    .where('swept_at', '<', times.sweptBeforeIso)
    .returning('resumes')
    .executeTakeFirst();
  return row?.resumes;
}

/**
 * Claims the run of a periodic chore if it is due by `dueByIso`, moving its next run to
 * `nextIso`: of several worker processes ticking at once, one gets true.
 */
export async function claimPeriodicRun(db: Db, name: string, dueByIso: string, nextIso: string): Promise<boolean> {
  await db
    .insertInto('periodic_runs')
    .values({ name, next_run_at: new Date(0).toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const claimed = await db
    .updateTable('periodic_runs')
    .set({ next_run_at: nextIso })
    .where('name', '=', name)
    .where('next_run_at', '<=', dueByIso)
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}
