import type { AppContext } from '../../context.js';
import { json, nowIso } from '../../db/codec.js';
import type { ConnectionTest, Row, UsedConnection } from '../../db/schema.js';
import { fail } from '../../http/errors.js';
import type { AuthUser } from '../../http/auth.js';
import { canOn, recordActions, type Actor } from '../../policy/policy.js';
import { pageOf, pageWindow, type PageQuery } from '../../http/schemas.js';
import type { EffectiveConnection } from '../../providers/factory.js';
import { isProviderLabel, PROVIDER_LABELS, type ProviderLabel } from '../../providers/labels.js';
import { capabilitiesOfModel, catalogueModels, PRESETS, retiringModels, type Retiring } from '../../providers/presets.js';
import { checkPublicUrl, SsrfRefused } from '../../security/ssrf.js';
import { ProviderError, STRUCTURED_MODES, type ConnectionOptions, type ProviderCredentials, type StructuredMode } from '../../providers/types.js';
import * as repo from './repository.js';

export type { ProviderCredentials };

export const CAPABILITIES = ['text', 'vision', 'image'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export interface ConnectionInput {
  name?: string;
  api_key?: string;
  base_url?: string;
  text_model?: string;
  vision_model?: string;
  image_model?: string;
  image_size?: string;
  concurrency?: number | null;
  rpm?: number | null;
  tpm?: number | null;
  options?: Partial<ConnectionOptions>;
}

type ConnectionRow = Pick<Row<'api_keys'>, 'provider' | 'base_url' | 'text_model' | 'vision_model' | 'image_model' | 'image_size' | 'concurrency' | 'rpm' | 'tpm' | 'options'>;

function effectiveOf(ctx: AppContext, row: ConnectionRow): EffectiveConnection {
  return ctx.providers.effective({
    provider: row.provider as ProviderLabel,
    baseUrl: row.base_url,
    textModel: row.text_model,
    visionModel: row.vision_model,
    imageModel: row.image_model,
    imageSize: row.image_size,
    concurrency: row.concurrency,
    rpm: row.rpm,
    tpm: row.tpm,
    options: row.options,
  });
}

function capabilitiesOf(effective: EffectiveConnection) {
  return { text: effective.textModel !== '', vision: effective.visionModel !== '', image: effective.imageModel !== '' };
}

function displayName(provider: string): string {
  return provider === 'local' ? '本地离线' : (PRESETS[provider as keyof typeof PRESETS]?.displayName ?? provider);
}

/** The connection's models the catalogue knows shut down within 30 days (or already did). */
function retiringOf(ctx: AppContext, provider: string, effective: EffectiveConnection): Retiring[] {
  const preset = PRESETS[provider as keyof typeof PRESETS];
  if (!preset) return [];
  return retiringModels(preset, { text: effective.textModel, vision: effective.visionModel, image: effective.imageModel }, ctx.clock.now());
}

/** A connection as the API shows it to `actor`: effective values, never the key, and what the actor may do with it. */
export function connectionView(ctx: AppContext, row: repo.PublicKeyRow, actor: Actor) {
  const effective = effectiveOf(ctx, row);
  return {
    id: row.id,
    provider: row.provider,
    name: row.name ?? displayName(row.provider),
    key_last4: row.key_last4,
    base_url: effective.baseUrl,
    text_model: effective.textModel,
    vision_model: effective.visionModel,
    image_model: effective.imageModel,
    image_size: effective.imageSize,
    concurrency: effective.concurrency,
    rpm: effective.rpm,
    tpm: effective.tpm,
    capabilities: capabilitiesOf(effective),
    options: effective.options,
    retiring: retiringOf(ctx, row.provider, effective),
    last_test: row.last_test ?? null,
    created_at: row.created_at,
    created_by: row.created_by,
    allowed_actions: recordActions(actor, 'api_key', row),
  };
}

/** The presets a connection can start from, with their defaults (the console prefills them). */
export function presetList() {
  return Object.values(PRESETS).map((p) => ({
    provider: p.label,
    display_name: p.displayName,
    base_url: p.baseUrl,
    text_model: p.textModel,
    vision_model: p.visionModel,
    image_model: p.image ? p.imageModel : '',
    draws_images: Boolean(p.image),
    reference_images: Boolean(p.image?.reference),
    structured_output: p.structured,
    concurrency: p.concurrency,
    rpm: p.rpm,
    tpm: p.tpm,
  }));
}

export async function listApiKeys(ctx: AppContext, auth: AuthUser, query: PageQuery) {
  const [items, total] = await repo.listKeys(ctx.db, auth.workspaceId, pageWindow(query));
  return pageOf(
    items.map((row) => connectionView(ctx, row, auth)),
    total,
    query,
  );
}

/**
 * A base URL must be http(s) without credentials or query and lead to addresses the deployment
 * allows for typed endpoints (public ones, unless ALLOW_PRIVATE_PROVIDER_URLS or _HOSTS say
 * otherwise). Every call checks again where it connects (security/ssrf.ts), so a name
 * re-pointed later is refused then.
 */
async function checkBaseUrl(ctx: AppContext, raw: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw fail('validation.http_url', { field: 'base_url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail('validation.http_url', { field: 'base_url' });
  if (url.username || url.password) throw fail('connection.url_credentials');
  if (url.search || url.hash) throw fail('connection.url_query');
  if (!ctx.config.allowPrivateUrls) {
    try {
      await checkPublicUrl(url.toString(), { isAllowedAddress: ctx.config.outbound.userEndpoints, resolve: ctx.config.outbound.resolve, mustResolve: true });
    } catch (err) {
      if (err instanceof SsrfRefused) throw fail(err.reason === 'unresolvable' ? 'connection.host_unresolvable' : 'connection.private_address');
      throw err;
    }
  }
  return url.toString().replace(/\/+$/, '');
}

const MODEL_FIELDS = ['text_model', 'vision_model', 'image_model'] as const;

/** The columns a create or PATCH writes; `undefined` leaves a column as it is. */
async function connectionColumns(ctx: AppContext, provider: ProviderLabel, input: ConnectionInput, stored: Row<'api_keys'>['options'] = null) {
  const columns: Partial<Record<'name' | 'base_url' | 'text_model' | 'vision_model' | 'image_model' | 'image_size', string | null>> & {
    concurrency?: number | null;
    rpm?: number | null;
    tpm?: number | null;
    options?: string;
  } = {};
  if (input.name !== undefined) columns.name = input.name.trim() || null;
  if (input.base_url !== undefined) columns.base_url = input.base_url.trim() === '' ? null : await checkBaseUrl(ctx, input.base_url);
  for (const field of MODEL_FIELDS) {
    if (input[field] !== undefined) columns[field] = input[field]!.trim();
  }
  if (input.image_size !== undefined) columns.image_size = input.image_size.trim() || null;
  if (input.concurrency !== undefined) columns.concurrency = input.concurrency;
  // Read by the next call: a changed budget needs no restart (providers are built per use).
  if (input.rpm !== undefined) columns.rpm = input.rpm;
  if (input.tpm !== undefined) columns.tpm = input.tpm;
  // A PATCH names only the options it changes; the others keep their stored values.
  if (input.options !== undefined) columns.options = json({ ...(stored ?? {}), ...input.options });
  if (provider === 'local' && Object.keys(columns).some((c) => c !== 'name')) throw fail('connection.local_fixed');
  return columns;
}

function checkConnection(ctx: AppContext, row: ConnectionRow) {
  const effective = effectiveOf(ctx, row);
  if (row.provider === 'openai-compatible' && !effective.baseUrl) throw fail('connection.base_url_required');
  if (row.image_model && !PRESETS[row.provider as keyof typeof PRESETS]?.image) throw fail('connection.no_image_endpoint', { provider: displayName(row.provider) });
  const caps = capabilitiesOf(effective);
  if (!caps.text && !caps.image) throw fail('connection.no_model');
}

export async function createApiKey(ctx: AppContext, auth: AuthUser, body: ConnectionInput & { provider: string; api_key: string }) {
  const label = body.provider.trim().toLowerCase();
  if (!isProviderLabel(label)) throw fail('connection.provider_unknown', { providers: PROVIDER_LABELS });
  const secret = body.api_key.trim();
  if (secret.length < 4) throw fail('connection.key_too_short');
  const columns = await connectionColumns(ctx, label, body);
  checkConnection(ctx, { provider: label, base_url: null, text_model: null, vision_model: null, image_model: null, image_size: null, concurrency: null, rpm: null, tpm: null, ...columns, options: body.options ?? null });
  const row = await repo.insertKey(ctx.db, {
    workspace_id: auth.workspaceId,
    provider: label,
    ...sealedKeyColumns(ctx, label, columns.base_url ?? null, secret),
    key_last4: secret.slice(-4),
    created_by: auth.userId,
    created_at: nowIso(ctx.clock.now()),
    ...columns,
  });
  return connectionView(ctx, row, auth);
}

/** The connection, when the access policy lets the caller `action` it (operators: the ones they added). */
async function keyFor(ctx: AppContext, auth: AuthUser, id: number, action: 'update' | 'delete' | 'test') {
  const key = await repo.findKey(ctx.db, auth.workspaceId, id);
  if (!key) throw fail('connection.not_found');
  if (!canOn(auth, 'api_key', action, key)) throw fail('connection.not_own', { verb: action === 'update' ? 'change' : action });
  return key;
}

/**
 * What a stored key is sealed for: its provider and the endpoint it was entered for (the stored
 * base_url; null is the preset's own, which only a release changes). See SecretBox.
 */
function keyBinding(provider: string, baseUrl: string | null): string {
  return `api-key:${provider}:${baseUrl ?? ''}`;
}

/** The columns of a key sealed for the endpoint it is entered for (also the bootstrap's demo key). */
export function sealedKeyColumns(ctx: Pick<AppContext, 'secrets'>, provider: string, baseUrl: string | null, secret: string) {
  const sealed = ctx.secrets.seal(secret, keyBinding(provider, baseUrl));
  return { ciphertext: sealed.ciphertext, iv: sealed.iv, auth_tag: sealed.authTag, key_version: sealed.keyVersion };
}

export async function updateApiKey(ctx: AppContext, auth: AuthUser, id: number, input: ConnectionInput) {
  const key = await keyFor(ctx, auth, id, 'update');
  const columns: Record<string, unknown> = await connectionColumns(ctx, key.provider as ProviderLabel, input, key.options);
  // Whoever may edit a connection could otherwise point someone else's key at a host they run.
  const endpointChanged = columns.base_url !== undefined && columns.base_url !== key.base_url;
  if (endpointChanged && input.api_key === undefined) throw fail('connection.key_for_new_url');
  if (input.api_key !== undefined) {
    const secret = input.api_key.trim();
    if (secret.length < 4) throw fail('connection.key_too_short');
    Object.assign(columns, { ...sealedKeyColumns(ctx, key.provider, (columns.base_url as string | null | undefined) ?? key.base_url, secret), key_last4: secret.slice(-4) });
  }
  const next = { ...key, ...columns, options: input.options ? { ...(key.options ?? {}), ...input.options } : key.options };
  checkConnection(ctx, next);
  // What the connection can do decides whether it may stay routed.
  const routing = await repo.routingOf(ctx.db, auth.workspaceId);
  const caps = capabilitiesOf(effectiveOf(ctx, next));
  for (const capability of CAPABILITIES) {
    if (routing?.[`${capability}_key_id`] === id && !caps[capability]) throw fail('connection.routed', { capability });
  }
  // A new endpoint, model or key starts again from the preset's structured mode, and its last test no longer says anything.
  const changed = Object.keys(columns).some((c) => !['name', 'concurrency', 'rpm', 'tpm'].includes(c));
  if (changed) Object.assign(columns, { structured_mode: null, last_test: null });
  const row = Object.keys(columns).length ? await repo.updateKey(ctx.db, auth.workspaceId, id, columns) : await repo.findPublicKey(ctx.db, auth.workspaceId, id);
  if (!row) throw fail('connection.not_found');
  return connectionView(ctx, row, auth);
}

/** Operators delete their own keys; supervisors and admins any key of the workspace. */
export async function deleteApiKey(ctx: AppContext, auth: AuthUser, id: number) {
  await keyFor(ctx, auth, id, 'delete');
  await ctx.db.transaction().execute((trx) => repo.deleteKey(trx, auth.workspaceId, id));
}

function unseal(ctx: AppContext, key: Row<'api_keys'>): ProviderCredentials {
  let apiKey: string;
  try {
    apiKey = ctx.secrets.open({ ciphertext: key.ciphertext, iv: key.iv, authTag: key.auth_tag, keyVersion: key.key_version }, keyBinding(key.provider, key.base_url));
  } catch {
    // Sealed under another SECRET_KEY (a restore without it) or for another endpoint.
    throw fail('connection.key_does_not_open');
  }
  return {
    keyId: key.id,
    provider: key.provider as ProviderLabel,
    apiKey,
    baseUrl: key.base_url,
    textModel: key.text_model,
    visionModel: key.vision_model,
    imageModel: key.image_model,
    imageSize: key.image_size,
    concurrency: key.concurrency,
    rpm: key.rpm,
    tpm: key.tpm,
    options: key.options,
    structuredMode: (STRUCTURED_MODES as readonly string[]).includes(key.structured_mode ?? '') ? (key.structured_mode as StructuredMode) : null,
  };
}

/**
 * Keys sealed before they were bound to their endpoint (SecretBox version 1) are bound, once,
 * to the endpoint they have at start: from then on no row's key opens for another one. A key
 * that does not open (another SECRET_KEY) is left as it is, and says so when used.
 */
export async function bindUnboundKeys(ctx: AppContext): Promise<void> {
  const rows = await ctx.db.selectFrom('api_keys').selectAll().where('key_version', '<', 2).execute();
  for (const key of rows) {
    let secret: string;
    try {
      secret = ctx.secrets.open({ ciphertext: key.ciphertext, iv: key.iv, authTag: key.auth_tag, keyVersion: key.key_version });
    } catch {
      ctx.log.warn({ keyId: key.id }, 'a provider key sealed under another SECRET_KEY was left unbound');
      continue;
    }
    // Only if the row is still what was read: a concurrent start or edit wins.
    await ctx.db
      .updateTable('api_keys')
      .set(sealedKeyColumns(ctx, key.provider, key.base_url, secret))
      .where('id', '=', key.id)
      .where('ciphertext', '=', key.ciphertext)
      .where('base_url', key.base_url === null ? 'is' : '=', key.base_url)
      .execute();
  }
}

/** Remembers a connection's structured-output downgrade (the provider factory's callback). */
export async function rememberStructuredMode(ctx: Pick<AppContext, 'db'>, keyId: number, mode: StructuredMode): Promise<void> {
  await ctx.db.updateTable('api_keys').set({ structured_mode: mode }).where('id', '=', keyId).execute();
}

// ---- routing -----------------------------------------------------------------------------------

export type Routing = Record<`${Capability}_key_id`, number | null>;

/** The failed result of the connection's latest test for this capability, if it failed (an untested one has not). */
function failedTest(key: Pick<Row<'api_keys'>, 'last_test'>, capability: Capability): ConnectionTest['results'][number] | undefined {
  return key.last_test?.results.find((r) => r.capability === capability && !r.ok);
}

export interface RoutingWarning {
  capability: Capability;
  key_id: number;
  error_kind: string | null;
}

/** A routing chosen by hand is kept as chosen, with a warning for each connection whose latest test failed for its capability. */
async function routingWarnings(ctx: AppContext, workspaceId: number, routing: Routing): Promise<RoutingWarning[]> {
  const keys = await repo.allKeys(ctx.db, workspaceId);
  return CAPABILITIES.flatMap((capability) => {
    const id = routing[`${capability}_key_id`];
    const failed = id === null ? undefined : failedTest(keys.find((k) => k.id === id) ?? { last_test: null }, capability);
    return failed && id !== null ? [{ capability, key_id: id, error_kind: failed.error_kind }] : [];
  });
}

export async function getRouting(ctx: AppContext, auth: AuthUser): Promise<Routing & { warnings: RoutingWarning[] }> {
  const row = await repo.routingOf(ctx.db, auth.workspaceId);
  const routing = { text_key_id: row?.text_key_id ?? null, vision_key_id: row?.vision_key_id ?? null, image_key_id: row?.image_key_id ?? null };
  return { ...routing, warnings: await routingWarnings(ctx, auth.workspaceId, routing) };
}

export async function putRouting(ctx: AppContext, auth: AuthUser, routing: Routing): Promise<Routing & { warnings: RoutingWarning[] }> {
  for (const capability of CAPABILITIES) {
    const id = routing[`${capability}_key_id`];
    if (id === null) continue;
    const key = await repo.findPublicKey(ctx.db, auth.workspaceId, id);
    if (!key) throw fail('connection.not_found');
    if (!capabilitiesOf(effectiveOf(ctx, key))[capability]) throw fail('connection.lacks_capability', { id, capability });
  }
  await repo.saveRouting(ctx.db, auth.workspaceId, routing);
  return { ...routing, warnings: await routingWarnings(ctx, auth.workspaceId, routing) };
}

export interface RoutedConnection {
  creds: ProviderCredentials;
  used: UsedConnection;
}

/**
 * The connection of each capability a generation uses: the one the task recorded while it
 * exists and still has the capability, else the workspace's routing, else automatic (the
 * operator's newest connection with the capability, else the workspace's newest with it).
 * The one place plaintext keys leave the database, for the provider layer only.
 */
export async function resolveConnections(
  ctx: AppContext,
  opts: { workspaceId: number; operatorId: number; recorded?: Partial<Record<Capability, number | null>> },
): Promise<Partial<Record<Capability, RoutedConnection>>> {
  const [keys, routing] = await Promise.all([repo.allKeys(ctx.db, opts.workspaceId), repo.routingOf(ctx.db, opts.workspaceId)]);
  const withCaps = keys.map((key) => {
    const effective = effectiveOf(ctx, key);
    return { key, effective, caps: capabilitiesOf(effective) };
  });
  const out: Partial<Record<Capability, RoutedConnection>> = {};
  const unsealed = new Map<number, ProviderCredentials>();
  for (const capability of CAPABILITIES) {
    const able = withCaps.filter((k) => k.caps[capability]);
    const byId = (id: number | null | undefined) => (id ? able.find((k) => k.key.id === id) : undefined);
    const newest = (among: typeof able) => among.find((k) => k.key.created_by === opts.operatorId) ?? among[0];
    // The automatic choice passes over a connection the user just saw fail its test; when every
    // one failed, the newest is still tried (the cause may be fixed by now, e.g. a topped-up balance).
    const chosen =
      byId(opts.recorded?.[capability]) ??
      byId(routing?.[`${capability}_key_id`]) ??
      newest(able.filter((k) => !failedTest(k.key, capability))) ??
      newest(able);
    if (!chosen) continue;
    let creds = unsealed.get(chosen.key.id);
    if (!creds) unsealed.set(chosen.key.id, (creds = unseal(ctx, chosen.key)));
    const model = capability === 'text' ? chosen.effective.textModel : capability === 'vision' ? chosen.effective.visionModel : chosen.effective.imageModel;
    out[capability] = { creds, used: { key_id: chosen.key.id, provider: chosen.key.provider, name: chosen.key.name ?? displayName(chosen.key.provider), model } };
  }
  return out;
}

export async function workspaceCapabilities(ctx: AppContext, workspaceId: number): Promise<Record<Capability, boolean>> {
  const caps = (await repo.allKeys(ctx.db, workspaceId)).map((key) => capabilitiesOf(effectiveOf(ctx, key)));
  return { text: caps.some((c) => c.text), vision: caps.some((c) => c.vision), image: caps.some((c) => c.image) };
}

export async function workspaceHasApiKey(ctx: AppContext, workspaceId: number): Promise<boolean> {
  return (await workspaceCapabilities(ctx, workspaceId)).text;
}

// ---- model list --------------------------------------------------------------------------------

export interface ModelList {
  ok: boolean;
  /** `provider`: its own `/models`; `catalogue`: the preset documents no list, the catalogue's models instead. */
  source: 'provider' | 'catalogue';
  models: Array<{ id: string; capabilities: Capability[]; retires_on: string | null }>;
  error_kind: string | null;
  message: string | null;
}

/**
 * What the provider's own model list offers this connection, each model marked by capability
 * where its id tells and by its shutdown day where the catalogue knows one. A provider failure
 * is an answer with its error kind (like a test), never an HTTP error.
 */
export async function listConnectionModels(ctx: AppContext, auth: AuthUser, id: number): Promise<ModelList> {
  // Models are listed to choose them: whoever may change the connection (it spends its key).
  const key = await keyFor(ctx, auth, id, 'update');
  const preset = PRESETS[key.provider as keyof typeof PRESETS];
  const mark = (ids: string[]) =>
    [...new Set(ids)].sort().map((model) => ({
      id: model,
      capabilities: key.provider === 'local' ? [...CAPABILITIES] : capabilitiesOfModel(preset, model),
      retires_on: preset?.retirements[model] ?? null,
    }));
  try {
    const ids = await ctx.providers.forCredentials(unseal(ctx, key), { maxRetries: 0 }).listModels(AbortSignal.timeout(30_000));
    if (ids === null) return { ok: true, source: 'catalogue', models: mark(catalogueModels(preset)), error_kind: null, message: null };
    return { ok: true, source: 'provider', models: mark(ids), error_kind: null, message: null };
  } catch (err) {
    if (!(err instanceof ProviderError)) ctx.log.warn({ err, keyId: id }, 'model list failed outside the provider');
    const failure = err instanceof ProviderError ? err : undefined;
    return { ok: false, source: 'provider', models: [], error_kind: failure?.kind ?? 'unavailable', message: failure?.message.slice(0, 500) ?? 'the model list could not be read' };
  }
}

// ---- test --------------------------------------------------------------------------------------

/** A 16×16 grey PNG: what the vision check looks at. */
const TEST_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAGklEQVR4nGNsaGhgIAUwkaR6VMOohqGlAQBsVAGH0GgmXQAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * One tiny text call (16 tokens at most), a vision call when the connection has a vision model,
 * and one image only when asked: each result with its latency and error kind, stored as
 * `last_test`. A provider failure is a result, never an HTTP error.
 */
export async function testApiKey(ctx: AppContext, auth: AuthUser, id: number, opts: { image: boolean }): Promise<ConnectionTest> {
  const key = await keyFor(ctx, auth, id, 'test');
  const creds = unseal(ctx, key);
  const effective = effectiveOf(ctx, key);
  const provider = ctx.providers.forCredentials(creds, { maxRetries: 0 });
  const checks: Array<{ capability: Capability; model: string; run: () => Promise<unknown> }> = [];
  const signal = AbortSignal.timeout(60_000);
  const tiny = { system: 'You are a connection check.', prompt: 'Reply with the single word: ok', maxTokens: 16, acceptTruncated: true, signal } as const;
  if (effective.textModel) checks.push({ capability: 'text', model: effective.textModel, run: () => provider.generateText({ ...tiny, intent: { kind: 'free' } }) });
  if (effective.visionModel) {
    checks.push({
      capability: 'vision',
      model: effective.visionModel,
      run: () => provider.analyzeImage({ ...tiny, prompt: 'What colour is this image? One word.', intent: { kind: 'free' }, images: [{ data: TEST_PNG, mime: 'image/png' }] }),
    });
  }
  if (opts.image && effective.imageModel) {
    checks.push({ capability: 'image', model: effective.imageModel, run: () => provider.generateImage({ prompt: 'A plain white ceramic cup on a wooden table, soft daylight. No text.', intent: { kind: 'free' }, signal }) });
  }
  const results = await Promise.all(
    checks.map(async (check) => {
      const started = performance.now();
      try {
        await check.run();
        return { capability: check.capability, ok: true, model: check.model, latency_ms: Math.round(performance.now() - started), error_kind: null, message: null };
      } catch (err) {
        const providerError = err instanceof ProviderError ? err : undefined;
        if (!providerError) ctx.log.warn({ err, keyId: id }, 'connection test failed outside the provider');
        return {
          capability: check.capability,
          ok: false,
          model: check.model,
          latency_ms: Math.round(performance.now() - started),
          error_kind: providerError?.kind ?? 'unavailable',
          message: providerError?.message.slice(0, 500) ?? 'the check could not be run',
        };
      }
    }),
  );
  const test: ConnectionTest = { ok: results.every((r) => r.ok), at: nowIso(ctx.clock.now()), results, retiring: retiringOf(ctx, key.provider, effective) };
  await repo.updateKey(ctx.db, auth.workspaceId, id, { last_test: json(test) });
  return test;
}
