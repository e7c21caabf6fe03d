import { sql, type Expression, type SqlBool } from 'kysely';

/**
 * `column` contains `q`, ignoring case, with `%` and `_` in `q` taken literally. The same SQL on
 * both dialects: SQLite has no default LIKE escape character and PostgreSQL's LIKE is
 * case-sensitive, so both the ESCAPE clause and lower() are spelled out.
 */
export function containsText(column: string, q: string): Expression<SqlBool> {
  const pattern = `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}
