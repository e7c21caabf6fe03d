import type { Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * Personal access tokens (issue 33, contract-decisions §13): what a script or an assistant (the
 * MCP server) presents instead of a person's password. The token itself is shown once and never
 * stored: `token_hash` is its SHA-256 (hex; 256 random bits need no slow hash), `token_hint` its
 * first characters for the list. `token_version` and `session_version` are the user's and the
 * membership's versions when it was made, like an access token's `ver` and `mv`: a password
 * change, a role change or a removal moves them, and the token is dead from then on.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  await t
    .id(db.schema.createTable('access_tokens'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_hint', 'text', (c) => c.notNull())
    .addColumn('scopes', t.json, (c) => c.notNull())
    .addColumn('token_version', 'integer', (c) => c.notNull())
    .addColumn('session_version', 'integer', (c) => c.notNull())
    .addColumn('expires_at', t.timestamp)
    .addColumn('last_used_at', t.timestamp)
    .addColumn('revoked_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('access_tokens_user_idx').on('access_tokens').columns(['workspace_id', 'user_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('access_tokens').execute();
}
