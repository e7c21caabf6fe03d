import type { Kysely } from 'kysely';
import { portable } from './types.js';

/**
 * Stored failures carry a reason key and its params (issue 34 item 2), next to the English text
 * they kept so far: a task's `failure_key`/`failure_params` beside `failure_reason`, and
 * `error_key`/`error_params` beside `error` on image candidates (a fission's images among them
 * since 20261128_0500_one_note_model), fissions and delivery packages. The console words a
 * failure from its key (web/src/api/errorText.ts), never from the text.
 *
 * Rows that failed before this migration are read once here, in the shapes the server wrote
 * until now (frozen with this file, like every migration); a text of no known shape becomes
 * `failure.other` with the text as its `detail`.
 */
const TABLES = [
  ['tasks', 'failure_reason', 'failure_key', 'failure_params'],
  ['image_candidates', 'error', 'error_key', 'error_params'],
  ['fission_tasks', 'error', 'error_key', 'error_params'],
  ['delivery_packages', 'error', 'error_key', 'error_params'],
] as const;

type Read = [key: string, params: Record<string, unknown>];

/** The failure sentences the server stored before reasons existed, as reason and params. */
export function readStoredFailure(text: string): Read {
  let m: RegExpExecArray | null;
  if ((m = /^texts of set (\w+) failed: (.*)$/s.exec(text))) return ['failure.text_set', { set: m[1], detail: m[2] }];
  if ((m = /^image (\w)(\d+) \((\w+)\) failed: (.*)$/s.exec(text))) return ['failure.image', { set: m[1], seq: Number(m[2]), role: m[3], detail: m[4] }];
  if ((m = /^(\w+) image failed: (.*)$/s.exec(text))) return ['failure.note_image', { role: m[1], detail: m[2] }];
  if ((m = /^retry failed: (.*)$/s.exec(text))) return ['failure.retry', { detail: m[1] }];
  if ((m = /^partly done: (.*); the rest is ready$/s.exec(text))) {
    const texts = /(\d+) of (\d+) text sets failed/.exec(m[1]!);
    const images = /(\d+) of (\d+) images failed/.exec(m[1]!);
    return [
      'failure.partly',
      {
        parts: m[1],
        ...(texts ? { texts_failed: Number(texts[1]), texts_total: Number(texts[2]) } : {}),
        ...(images ? { images_failed: Number(images[1]), images_total: Number(images[2]) } : {}),
      },
    ];
  }
  if ((m = /^nothing usable was produced: (.*)$/s.exec(text))) return ['failure.nothing', { detail: m[1] }];
  if ((m = /^the fission call failed: (.*)$/s.exec(text))) return ['failure.fission_call', { detail: m[1] }];
  if (/^the package could not be built/.test(text)) return ['failure.package_build', {}];
  if (/^the build could not be queued/.test(text)) return ['failure.package_queue', {}];
  return ['failure.other', { detail: text }];
}

export async function up(db: Kysely<any>): Promise<void> {
  const t = portable(db);
  for (const [table, text, key, params] of TABLES) {
    await db.schema.alterTable(table).addColumn(key, 'text').execute();
    await db.schema.alterTable(table).addColumn(params, t.json).execute();
    const hasKind = table === 'image_candidates';
    const rows = await db
      .selectFrom(table)
      .select(['id', text, ...(hasKind ? ['error_kind'] : [])])
      .where(text, 'is not', null)
      .execute();
    for (const row of rows) {
      const [reason, values] = readStoredFailure(String(row[text]));
      const withKind = hasKind && row.error_kind ? { ...values, error_kind: row.error_kind } : values;
      await db
        .updateTable(table)
        .set({ [key]: reason, [params]: JSON.stringify(withKind) })
        .where('id', '=', row.id)
        .execute();
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table, , key, params] of TABLES) {
    await db.schema.alterTable(table).dropColumn(params).execute();
    await db.schema.alterTable(table).dropColumn(key).execute();
  }
}
