import { sql, type Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * PostgreSQL only (SQLite has one writer at a time): the `task_counts` trigger took the row of a
 * task's old (product, status) and then the row of its new one, so two transactions moving tasks
 * in opposite directions (pending → generating while another goes generating → pending, or
 * across products) could each hold the row the other wanted, and one failed with "deadlock
 * detected" (seen under load on POST /tasks). Both rows now change in one statement, in primary
 * key order, and only where the net change is not zero.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!portable(db).pg) return;
  await sql`CREATE OR REPLACE FUNCTION task_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO task_counts AS c (workspace_id, product_id, status, n)
        SELECT workspace_id, product_id, status, sum(n) FROM (
          SELECT OLD.workspace_id AS workspace_id, OLD.product_id AS product_id, OLD.status AS status, -1 AS n WHERE TG_OP <> 'INSERT'
          UNION ALL
          SELECT NEW.workspace_id, NEW.product_id, NEW.status, 1 WHERE TG_OP <> 'DELETE'
        ) AS change
        GROUP BY workspace_id, product_id, status
        HAVING sum(n) <> 0
        ORDER BY workspace_id, product_id, status
      ON CONFLICT (workspace_id, product_id, status) DO UPDATE SET n = c.n + EXCLUDED.n;
      RETURN NULL;
    END $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!portable(db).pg) return;
  await sql`CREATE OR REPLACE FUNCTION task_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE task_counts SET n = n - 1
          WHERE workspace_id = OLD.workspace_id AND product_id = OLD.product_id AND status = OLD.status;
      END IF;
      IF TG_OP IN ('UPDATE', 'INSERT') THEN
        INSERT INTO task_counts (workspace_id, product_id, status, n) VALUES (NEW.workspace_id, NEW.product_id, NEW.status, 1)
          ON CONFLICT (workspace_id, product_id, status) DO UPDATE SET n = task_counts.n + 1;
      END IF;
      RETURN NULL;
    END $$`.execute(db);
}
