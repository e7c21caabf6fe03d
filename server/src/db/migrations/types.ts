import { PostgresAdapter, sql, type Kysely, type ColumnDefinitionBuilder, type CreateTableBuilder } from 'kysely';

/**
 * Column types that differ between the dialects, in one place. Migrations are frozen once
 * released: a change is a new migration file, never an edit of an old one.
 */
export function portable(db: Kysely<any>) {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  return {
    pg,
    /** Auto-increment integer primary key. */
    id: <T extends string>(table: CreateTableBuilder<T, any>) =>
      pg
        ? table.addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
        : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()),
    json: pg ? sql`jsonb` : sql`text`,
    bool: pg ? sql`boolean` : sql`integer`,
    timestamp: pg ? sql`timestamptz` : sql`text`,
    real: pg ? sql`double precision` : sql`real`,
    /** Boolean default that both dialects accept as literal SQL. */
    boolDefault: (value: boolean) => (c: ColumnDefinitionBuilder) =>
      c.notNull().defaultTo(pg ? sql.raw(value ? 'true' : 'false') : sql.raw(value ? '1' : '0')),
  };
}
