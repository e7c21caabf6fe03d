import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/codec.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { BannedLevel } from '../../db/schema.js';
import { fail } from '../../http/errors.js';
import type { AuthUser } from '../../http/auth.js';
import { canOn, recordActions, type Actor } from '../../policy/policy.js';
import { pageOf, pageWindow, type PageQuery } from '../../http/schemas.js';
import { BannedWordMatcher } from '../../content/banned-words.js';
import { BANNED_PRESETS, findPreset, LEGAL_BASELINE, type BannedPreset } from '../../content/banned-presets.js';
import type { DbOrTx } from '../../db/database.js';
import { bannedWordsOfOtherProducts, productCategory } from '../products/service.js';
import * as repo from './repository.js';

export interface BannedWordInput {
  word: string;
  level: BannedLevel;
  replacement?: string | null | undefined;
  updatable?: boolean | undefined;
}

function normalise(input: BannedWordInput) {
  const word = input.word.trim();
  if (word.length === 0) throw fail('validation.blank', { field: 'body.word' });
  const replacement = input.replacement?.trim() ? input.replacement.trim() : null;
  return { word, level: input.level, replacement, updatable: input.updatable ?? true };
}

type WordRow = NonNullable<Awaited<ReturnType<typeof repo.findWord>>>;

/** A word as the API shows it to `actor`, with what the actor may do to it. */
const wordView = (actor: Actor, row: WordRow) => ({ ...row, allowed_actions: recordActions(actor, 'banned_word', row) });

export async function listBannedWords(ctx: AppContext, auth: AuthUser, query: PageQuery & { q?: string | undefined; level?: BannedLevel | undefined }) {
  const [items, total] = await repo.listWords(ctx.db, auth.workspaceId, { q: query.q, level: query.level }, pageWindow(query));
  return pageOf(items.map((row) => wordView(auth, row)), total, query);
}

async function requireWord(ctx: AppContext, auth: AuthUser, id: number) {
  const row = await repo.findWord(ctx.db, auth.workspaceId, id);
  if (!row) throw fail('banned_word.not_found');
  return row;
}

export async function getBannedWord(ctx: AppContext, auth: AuthUser, id: number) {
  return wordView(auth, await requireWord(ctx, auth, id));
}

function duplicate(word: string) {
  return fail('banned_word.exists', { word });
}

export async function createBannedWord(ctx: AppContext, auth: AuthUser, input: BannedWordInput) {
  const values = normalise(input);
  if (await repo.findByWord(ctx.db, auth.workspaceId, values.word)) throw duplicate(values.word);
  const now = nowIso(ctx.clock.now());
  try {
    return wordView(auth, await repo.insertWord(ctx.db, { workspace_id: auth.workspaceId, ...values, created_at: now, updated_at: now }));
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate(values.word);
    throw err;
  }
}

/** `updatable: false` words are the legal baseline: only an admin may change or remove them. */
function assertMayChange(auth: AuthUser, row: { updatable: boolean; word: string }, action: 'update' | 'delete') {
  if (!canOn(auth, 'banned_word', action, row)) {
    throw fail('banned_word.locked', { word: row.word });
  }
}

export async function updateBannedWord(ctx: AppContext, auth: AuthUser, id: number, input: BannedWordInput) {
  const values = normalise(input);
  const existing = await requireWord(ctx, auth, id);
  assertMayChange(auth, existing, 'update');
  const other = await repo.findByWord(ctx.db, auth.workspaceId, values.word);
  if (other && other.id !== id) throw duplicate(values.word);
  try {
    const row = await repo.updateWord(ctx.db, auth.workspaceId, id, { ...values, updated_at: nowIso(ctx.clock.now()) });
    if (!row) throw fail('banned_word.not_found');
    return wordView(auth, row);
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate(values.word);
    throw err;
  }
}

export async function deleteBannedWord(ctx: AppContext, auth: AuthUser, id: number) {
  const existing = await requireWord(ctx, auth, id);
  assertMayChange(auth, existing, 'delete');
  // Its attachments to products go with it (product_banned_words, ON DELETE CASCADE).
  await repo.deleteWord(ctx.db, auth.workspaceId, id);
}

export function listPresets() {
  return BANNED_PRESETS.map((p) => ({ name: p.name, title: p.title, description: p.description, word_count: p.words.length, words: p.words.map((w) => ({ word: w.word, level: w.level, replacement: w.replacement ?? null })) }));
}

function presetRows(preset: BannedPreset, workspaceId: number, now: string) {
  return preset.words.map((w) => ({
    workspace_id: workspaceId,
    word: w.word,
    level: w.level,
    replacement: w.replacement ?? null,
    updatable: false,
    preset: preset.name,
    created_at: now,
    updated_at: now,
  }));
}

/** Idempotent: words already in the workspace (by exact text) are left as they are. */
export async function importPreset(ctx: AppContext, auth: AuthUser, name: string) {
  const preset = findPreset(name);
  if (!preset) throw fail('banned_word.preset_not_found', { name });
  const now = nowIso(ctx.clock.now());
  const imported = (await ctx.db.transaction().execute((trx) => repo.insertMissingWords(trx, presetRows(preset, auth.workspaceId, now)))).length;
  return { preset: preset.name, imported, skipped: preset.words.length - imported };
}

/**
 * A new workspace starts with the legal baseline active (contract-decisions §9), in the
 * transaction that creates it: a team relaxes a word, it never silently starts from nothing.
 */
export async function seedLegalBaseline(trx: DbOrTx, workspaceId: number, now: string): Promise<void> {
  for (const preset of LEGAL_BASELINE) await repo.insertMissingWords(trx, presetRows(preset, workspaceId, now));
}

/**
 * Many words at once (a pasted list), in one transaction. A word repeated in the list counts
 * once (its first entry); words already in the workspace are skipped and named rather than
 * refused, so pasting the same list twice changes nothing.
 */
export async function createBannedWords(ctx: AppContext, auth: AuthUser, items: BannedWordInput[]) {
  const unique = new Map<string, ReturnType<typeof normalise>>();
  items.forEach((item, i) => {
    const values = normaliseAt(item, i);
    if (!unique.has(values.word)) unique.set(values.word, values);
  });
  const now = nowIso(ctx.clock.now());
  const created = await ctx.db.transaction().execute((trx) =>
    repo.insertMissingWords(trx, [...unique.values()].map((v) => ({ workspace_id: auth.workspaceId, ...v, created_at: now, updated_at: now }))),
  );
  const fresh = new Set(created);
  return { created: created.length, skipped: [...unique.keys()].filter((w) => !fresh.has(w)) };
}

function normaliseAt(item: BannedWordInput, index: number) {
  try {
    return normalise(item);
  } catch {
    throw fail('validation.blank', { field: `body.items/${index}/word` });
  }
}

/**
 * Deletes the given words, all or none: an id of no word of this workspace is a 404, a locked
 * word (updatable: false) refuses the whole request for a non-admin (403) so nothing is half done.
 */
export async function deleteBannedWords(ctx: AppContext, auth: AuthUser, ids: number[]) {
  const wanted = [...new Set(ids)];
  await ctx.db.transaction().execute(async (trx) => {
    const rows = await repo.findWords(trx, auth.workspaceId, wanted);
    if (rows.length !== wanted.length) throw fail('banned_word.not_found');
    for (const row of rows) assertMayChange(auth, row, 'delete');
    await repo.deleteWords(trx, auth.workspaceId, wanted);
  });
  return { deleted: wanted.length };
}

const matcherCache = new Map<string, { version: string; matcher: BannedWordMatcher }>();
// Each compiled matcher holds a 128 KiB character table plus its automaton.
const MATCHER_CACHE_LIMIT = 64;

/**
 * The words that apply to the texts of one product: every word of the workspace attached to no
 * product, and the words attached to this product (its extra words); a word attached only to
 * other products does not apply; a baseline list that exempts the product's kind (the medical
 * claims, for a medicine) does not apply either. Every check (task creation, generation, the judge's facts, the
 * writer's avoid list, imports, edits, fission) goes through here, so the rule lives in one place.
 */
async function wordsForProduct(ctx: AppContext, workspaceId: number, productId: number) {
  const [version, others, category] = await Promise.all([
    repo.wordsVersion(ctx.db, workspaceId),
    bannedWordsOfOtherProducts(ctx.db, workspaceId, productId),
    productCategory(ctx.db, workspaceId, productId),
  ]);
  const exempt = new Set(BANNED_PRESETS.filter((p) => category !== null && p.exempt?.(category)).map((p) => p.name));
  return {
    // Products with the same words left out share one compiled matcher.
    key: `${workspaceId}:${[...others].sort((a, b) => a - b).join(',')}:${[...exempt].join(',')}`,
    version,
    load: async () => (await repo.allWords(ctx.db, workspaceId)).filter((w) => !others.has(w.id) && !(w.preset && exempt.has(w.preset))),
  };
}

/**
 * The compiled matcher of the words that apply to a product (wordsForProduct). Compiling
 * thousands of words costs a few milliseconds; the cache is keyed by the words left out and a
 * cheap version query (count, max id, max updated_at), so a change made by any process is seen
 * on the next check.
 */
export async function bannedWordMatcherFor(ctx: AppContext, workspaceId: number, productId: number): Promise<BannedWordMatcher> {
  const scope = await wordsForProduct(ctx, workspaceId, productId);
  const cached = matcherCache.get(scope.key);
  if (cached?.version === scope.version) return cached.matcher;
  const matcher = new BannedWordMatcher(await scope.load());
  if (matcherCache.size >= MATCHER_CACHE_LIMIT) matcherCache.delete(matcherCache.keys().next().value!);
  matcherCache.set(scope.key, { version: scope.version, matcher });
  return matcher;
}

/** 422 / 42202 naming every hard-blocked word found in the texts (task creation, imports). */
export async function assertNoHardBlock(ctx: AppContext, workspaceId: number, productId: number, texts: Array<string | null | undefined>) {
  const matcher = await bannedWordMatcherFor(ctx, workspaceId, productId);
  const words = matcher.hardBlocks(texts.filter((t): t is string => typeof t === 'string'));
  if (words.length > 0) {
    throw fail('banned_word.hard_block', { words });
  }
}

/**
 * The words a prompt asks the model to avoid: what this workspace blocks for the product
 * (wordsForProduct, hard blocks only), the team's own words first, then each legal list's in
 * turn. Warnings are left out: they do not stop a note, and some of them (美白, 修复) a profile
 * may state, which an avoid list would forbid; auto-fixed words the service replaces itself.
 */
export async function wordsToAvoid(ctx: AppContext, workspaceId: number, productId: number, limit: number): Promise<string[]> {
  const words = await (await wordsForProduct(ctx, workspaceId, productId)).load();
  return words
    .filter((w) => w.level === 'hard_block')
    .sort((a, b) => Number(a.preset !== null) - Number(b.preset !== null) || (a.preset ?? '').localeCompare(b.preset ?? '') || a.word.localeCompare(b.word))
    .slice(0, limit)
    .map((w) => w.word);
}
