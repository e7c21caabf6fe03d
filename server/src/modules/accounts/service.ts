import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Dialect } from '../../db/database.js';
import { nowIso } from '../../db/codec.js';
import type { DB, Row } from '../../db/schema.js';
import { isProfileUrl, isTimeZone } from '../../content/publishing.js';
import { fail } from '../../http/errors.js';
import type { AuthUser } from '../../http/auth.js';
import { pageOf, pageWindow, type PageQuery } from '../../http/schemas.js';
import * as repo from './repository.js';

/** contract-decisions §11's defaults: two posts a day, three hours apart, on Beijing time. */
export const ACCOUNT_DEFAULTS = { daily_cap: 2, min_gap_minutes: 180, timezone: 'Asia/Shanghai' } as const;

export type AccountRow = Row<'accounts'>;

export interface AccountInput {
  name?: string | undefined;
  profile_url?: string | null | undefined;
  persona?: string | null | undefined;
  daily_cap?: number | undefined;
  min_gap_minutes?: number | undefined;
  timezone?: string | undefined;
  active?: boolean | undefined;
}

function checked(input: AccountInput) {
  const values: AccountInput = {};
  if (input.name !== undefined) {
    const name = input.name.trim();
    if (!name) throw fail('validation.blank', { field: 'body.name' });
    values.name = name;
  }
  if (input.profile_url !== undefined) {
    const url = input.profile_url?.trim() || null;
    if (url && !isProfileUrl(url)) throw fail('account.profile_url', { field: 'body.profile_url' });
    values.profile_url = url;
  }
  if (input.persona !== undefined) values.persona = input.persona?.trim() || null;
  if (input.timezone !== undefined) {
    if (!isTimeZone(input.timezone)) throw fail('account.timezone', { field: 'body.timezone', value: input.timezone });
    values.timezone = input.timezone;
  }
  if (input.daily_cap !== undefined) values.daily_cap = input.daily_cap;
  if (input.min_gap_minutes !== undefined) values.min_gap_minutes = input.min_gap_minutes;
  if (input.active !== undefined) values.active = input.active;
  return values;
}

export const accountView = (row: AccountRow) => ({ ...row, active: Boolean(row.active) });

export async function listAccounts(ctx: AppContext, auth: AuthUser, query: PageQuery & { active?: boolean | undefined }) {
  const [rows, total] = await repo.listAccounts(ctx.db, auth.workspaceId, { active: query.active }, pageWindow(query));
  return pageOf(rows.map(accountView), total, query);
}

/** The account of the workspace, or the 404 every foreign id gets. */
export async function requireAccount(ctx: Pick<AppContext, 'db'>, workspaceId: number, id: number): Promise<AccountRow> {
  const row = await repo.findAccount(ctx.db, workspaceId, id);
  if (!row) throw fail('account.not_found');
  return row;
}

export async function getAccount(ctx: AppContext, auth: AuthUser, id: number) {
  return accountView(await requireAccount(ctx, auth.workspaceId, id));
}

export async function createAccount(ctx: AppContext, auth: AuthUser, input: AccountInput & { name: string }) {
  const values = checked(input);
  const now = nowIso(ctx.clock.now());
  const row = await repo.insertAccount(ctx.db, {
    workspace_id: auth.workspaceId,
    name: values.name!,
    profile_url: values.profile_url ?? null,
    persona: values.persona ?? null,
    daily_cap: values.daily_cap ?? ACCOUNT_DEFAULTS.daily_cap,
    min_gap_minutes: values.min_gap_minutes ?? ACCOUNT_DEFAULTS.min_gap_minutes,
    timezone: values.timezone ?? ACCOUNT_DEFAULTS.timezone,
    active: values.active ?? true,
    created_by: auth.userId,
    created_at: now,
    updated_at: now,
  });
  return accountView(row);
}

export async function updateAccount(ctx: AppContext, auth: AuthUser, id: number, input: AccountInput) {
  const values = checked(input);
  await requireAccount(ctx, auth.workspaceId, id);
  const row = await repo.updateAccount(ctx.db, auth.workspaceId, id, { ...values, updated_at: nowIso(ctx.clock.now()) });
  if (!row) throw fail('account.not_found');
  return accountView(row);
}

/**
 * An account with posts keeps them: it is deactivated (no new posts; its history and results
 * stay in analytics). One without posts is deleted. Answers what happened.
 */
export async function deleteAccount(ctx: AppContext, auth: AuthUser, id: number): Promise<{ deleted: boolean; deactivated: boolean }> {
  return ctx.db.transaction().execute(async (trx) => {
    await requireAccount({ db: trx }, auth.workspaceId, id);
    if ((await repo.postCount(trx, auth.workspaceId, id)) > 0) {
      await repo.updateAccount(trx, auth.workspaceId, id, { active: false, updated_at: nowIso(ctx.clock.now()) });
      return { deleted: false, deactivated: true };
    }
    await repo.deleteAccount(trx, auth.workspaceId, id);
    return { deleted: true, deactivated: false };
  });
}

/** The active account a task or fission is meant for (§11): its persona goes to generation. */
export async function accountForNotes(ctx: Pick<AppContext, 'db'>, workspaceId: number, id: number): Promise<Pick<AccountRow, 'id' | 'name' | 'persona'>> {
  const account = await requireAccount(ctx, workspaceId, id);
  if (!account.active) throw fail('account.inactive', { account: account.name });
  return { id: account.id, name: account.name, persona: account.persona };
}

/** The persona a generation writes in, or undefined when the notes are meant for no account (or it was deleted). */
export async function personaFor(ctx: Pick<AppContext, 'db'>, workspaceId: number, id: number | null): Promise<{ name: string; persona: string | null } | undefined> {
  if (id === null) return undefined;
  const account = await repo.findAccount(ctx.db, workspaceId, id);
  return account ? { name: account.name, persona: account.persona } : undefined;
}

/** The account, locked for the rest of the transaction: what planning a post on it checks against. */
export async function lockedAccount(trx: Transaction<DB>, dialect: Dialect, workspaceId: number, id: number): Promise<AccountRow> {
  const row = await repo.lockAccount(trx, dialect, workspaceId, id);
  if (!row) throw fail('account.not_found');
  return row;
}
