import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/codec.js';
import type { Row } from '../../db/schema.js';
import { AppError, badRequest, notFound } from '../../http/errors.js';
import { roleAtLeast, type AuthUser } from '../../http/auth.js';
import { pageOf, pageWindow, type PageQuery } from '../../http/schemas.js';
import { isProviderLabel, PROVIDER_LABELS, type ProviderLabel } from '../../providers/labels.js';
import type { ProviderCredentials } from '../../providers/types.js';

export type { ProviderCredentials };
import * as repo from './repository.js';

export async function listApiKeys(ctx: AppContext, auth: AuthUser, query: PageQuery) {
  const [items, total] = await repo.listKeys(ctx.db, auth.workspaceId, pageWindow(query));
  return pageOf(items, total, query);
}

export async function createApiKey(ctx: AppContext, auth: AuthUser, provider: string, apiKey: string) {
  const label = provider.trim().toLowerCase();
  if (!isProviderLabel(label)) throw badRequest(`provider must be one of ${PROVIDER_LABELS.join(', ')}`);
  const secret = apiKey.trim();
  if (secret.length < 4) throw badRequest('api_key is too short');
  const sealed = ctx.secrets.seal(secret);
  return repo.insertKey(ctx.db, {
    workspace_id: auth.workspaceId,
    provider: label,
    ciphertext: sealed.ciphertext,
    iv: sealed.iv,
    auth_tag: sealed.authTag,
    key_version: sealed.keyVersion,
    key_last4: secret.slice(-4),
    created_by: auth.userId,
    created_at: nowIso(ctx.clock.now()),
  });
}

/** Operators delete their own keys; supervisors and admins any key of the workspace. */
export async function deleteApiKey(ctx: AppContext, auth: AuthUser, id: number) {
  const key = await repo.findKey(ctx.db, auth.workspaceId, id);
  if (!key) throw notFound('API key');
  if (key.created_by !== auth.userId && !roleAtLeast(auth.role, 'supervisor')) {
    throw new AppError('forbidden', 'operators can delete only the keys they added');
  }
  await repo.deleteKey(ctx.db, auth.workspaceId, id);
}

function unseal(ctx: AppContext, key: Row<'api_keys'>): ProviderCredentials {
  const apiKey = ctx.secrets.open({ ciphertext: key.ciphertext, iv: key.iv, authTag: key.auth_tag, keyVersion: key.key_version });
  return { keyId: key.id, provider: key.provider as ProviderLabel, apiKey };
}

/**
 * The one place a plaintext key leaves the database, for the provider layer only. Uses the key
 * a task recorded while it exists, else the operator's newest key, else the workspace's newest.
 */
export async function resolveProviderCredentials(
  ctx: AppContext,
  opts: { workspaceId: number; operatorId: number; preferredKeyId?: number | null },
): Promise<ProviderCredentials | undefined> {
  if (opts.preferredKeyId) {
    const recorded = await repo.findKey(ctx.db, opts.workspaceId, opts.preferredKeyId);
    if (recorded) return unseal(ctx, recorded);
  }
  const key = await repo.newestKeyFor(ctx.db, opts.workspaceId, opts.operatorId);
  return key ? unseal(ctx, key) : undefined;
}

export async function workspaceHasApiKey(ctx: AppContext, workspaceId: number): Promise<boolean> {
  return (await repo.countKeys(ctx.db, workspaceId)) > 0;
}
