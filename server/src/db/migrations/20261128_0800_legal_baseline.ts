import type { Kysely } from 'kysely';
import { BANNED_PRESETS, LEGAL_BASELINE } from '../../content/banned-presets.js';
import { portable } from './types.js';

/**
 * Contract-decisions §9: the legal baseline is active in every workspace. Words now remember the
 * built-in list they came from (`preset`), so the medical-claim list can spare medical products;
 * locked words matching a list are that list's imports. A workspace that has no banned word at
 * all has never chosen its words and gets the baseline now; a workspace that configured words
 * keeps exactly what it chose. The lists are read from the kernel rather than frozen here on
 * purpose: a database that reaches this step later should start from the baseline shipped then.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('banned_words').addColumn('preset', 'text').execute();
  const t = portable(db);
  const locked = t.pg ? false : 0;
  for (const preset of [...BANNED_PRESETS].reverse()) {
    // Reversed: a word listed twice ends with the first list that names it, as imports did.
    const words = preset.words.map((w) => w.word);
    await db.updateTable('banned_words').set({ preset: preset.name }).where('word', 'in', words).where('updatable', '=', locked).execute();
  }
  const empty = await db
    .selectFrom('workspaces')
    .select('id')
    .where('id', 'not in', db.selectFrom('banned_words').select('workspace_id'))
    .execute();
  const now = new Date().toISOString();
  for (const { id } of empty) {
    for (const preset of LEGAL_BASELINE) {
      for (const w of preset.words) {
        await db
          .insertInto('banned_words')
          .values({ workspace_id: id, word: w.word, level: w.level, replacement: w.replacement ?? null, updatable: locked, preset: preset.name, created_at: now, updated_at: now })
          .onConflict((oc) => oc.columns(['workspace_id', 'word']).doNothing())
          .execute();
      }
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('banned_words').dropColumn('preset').execute();
}
