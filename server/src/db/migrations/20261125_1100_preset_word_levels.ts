import type { Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * Preset words imported before issue 14 keep levels that break grammar or swap one claim for
 * another: 最好 → 很好 turns advice (最好提前) into nonsense, 速效 → 快速见效 and 立竿见影 →
 * 效果明显 keep the efficacy claim. Rows still exactly as the old presets imported them (locked,
 * same level and replacement) take the new presets' levels; rows a workspace changed are left
 * alone. `updated_at` moves, so every process recompiles its cached matcher.
 */
const CHANGES: Array<{ word: string; from: { level: string; replacement: string }; to: { level: string; replacement: null } }> = [
  { word: '最好', from: { level: 'auto_fix', replacement: '很好' }, to: { level: 'soft_warn', replacement: null } },
  { word: '完美', from: { level: 'auto_fix', replacement: '出色' }, to: { level: 'soft_warn', replacement: null } },
  { word: '美白', from: { level: 'auto_fix', replacement: '提亮' }, to: { level: 'soft_warn', replacement: null } },
  { word: '速效', from: { level: 'auto_fix', replacement: '快速见效' }, to: { level: 'hard_block', replacement: null } },
  { word: '立竿见影', from: { level: 'auto_fix', replacement: '效果明显' }, to: { level: 'hard_block', replacement: null } },
];

async function move(db: Kysely<any>, direction: 'up' | 'down'): Promise<void> {
  const t = portable(db);
  const locked = t.pg ? false : 0;
  const now = new Date().toISOString();
  for (const change of CHANGES) {
    const [match, set] = direction === 'up' ? [change.from, change.to] : [change.to, change.from];
    let query = db
      .updateTable('banned_words')
      .set({ level: set.level, replacement: set.replacement, updated_at: now })
      .where('word', '=', change.word)
      .where('updatable', '=', locked)
      .where('level', '=', match.level);
    query = match.replacement === null ? query.where('replacement', 'is', null) : query.where('replacement', '=', match.replacement);
    await query.execute();
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  await move(db, 'up');
}

export async function down(db: Kysely<any>): Promise<void> {
  await move(db, 'down');
}
