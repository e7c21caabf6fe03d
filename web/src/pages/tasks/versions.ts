import type { ImageCandidate, TextCandidate } from '../../api/types';

/** Which of a slot's versions a candidate is: the original, the n-th regeneration, the n-th upload. */
export type VersionKind = { kind: 'original' } | { kind: 'regen'; n: number } | { kind: 'upload'; n: number };

export interface Slot {
  key: string;
  seq: number;
  /** Oldest first. */
  versions: { c: ImageCandidate; version: VersionKind }[];
  /** The version that ships: the selected one (newest of several), else none. */
  selected: ImageCandidate | undefined;
  /** The newest version: what a failed slot is judged by. */
  newest: ImageCandidate;
}

/** A set's images as slots (one per seq), each with its versions in the order they were made. */
export function slotsOf(images: readonly ImageCandidate[]): Slot[] {
  const bySeq = new Map<number, ImageCandidate[]>();
  for (const i of images) bySeq.set(i.seq, [...(bySeq.get(i.seq) ?? []), i]);
  return [...bySeq.entries()]
    .sort(([a], [b]) => a - b)
    .map(([seq, list]) => {
      const sorted = list.slice().sort((a, b) => a.candidate_id - b.candidate_id);
      let regen = 0;
      let upload = 0;
      const versions = sorted.map((c) => ({
        c,
        version: (c.source === 'upload' ? { kind: 'upload', n: ++upload } : c.is_regen ? { kind: 'regen', n: ++regen } : { kind: 'original' }) as VersionKind,
      }));
      const selected = sorted.filter((c) => c.is_selected).pop();
      return { key: `${sorted[0]!.strategy}:${seq}`, seq, versions, selected, newest: sorted[sorted.length - 1]! };
    });
}

/** Slots whose newest version failed: the image problems still open, as `strategy:seq`. */
export function failedSlots(images: readonly ImageCandidate[]): ImageCandidate[] {
  const newest = new Map<string, ImageCandidate>();
  for (const i of images) {
    const k = `${i.strategy}:${i.seq}`;
    const cur = newest.get(k);
    if (!cur || i.candidate_id > cur.candidate_id) newest.set(k, i);
  }
  return [...newest.values()].filter((i) => i.status === 'failed');
}

/**
 * What to say after an edit is saved, from the banned words it still holds: the server keeps a
 * hard-blocked edit but takes it out of the selection (an error), soft-warn words are a warning
 * (auto-fix words were replaced already and are not among the hits).
 */
export function editWarning(hits: TextCandidate['banned_hits']): { level: 'error' | 'warning'; key: string; words: string } | undefined {
  const words = (level: string) => [...new Set(hits.filter((h) => h.level === level).map((h) => h.word))].join('、');
  if (words('hard_block')) return { level: 'error', key: 'desk.hardBlock', words: words('hard_block') };
  if (words('soft_warn')) return { level: 'warning', key: 'desk.softWarn', words: words('soft_warn') };
  return undefined;
}
