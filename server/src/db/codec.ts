import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { BOOLEAN_COLUMNS, JSON_COLUMNS } from './schema.js';

/** JSON columns are written as text on both dialects (node-pg would turn a JS array into a PG array). */
export function json(value: unknown): string {
  return JSON.stringify(value ?? null);
}

export function nowIso(date: Date = new Date()): string {
  return date.toISOString();
}

/**
 * SQLite hands back JSON columns as text and booleans as 0/1; PostgreSQL already parses jsonb and
 * boolean. This plugin (SQLite only) makes rows look the same as on PostgreSQL, by column name.
 */
export class SqliteRowNormalizer implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    for (const row of args.result.rows) {
      for (const key of Object.keys(row)) {
        const value = row[key];
        if (typeof value === 'number' && BOOLEAN_COLUMNS.has(key)) row[key] = value !== 0;
        else if (typeof value === 'string' && JSON_COLUMNS.has(key)) row[key] = JSON.parse(value);
      }
    }
    return args.result;
  }
}
