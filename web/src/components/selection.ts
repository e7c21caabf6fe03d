/**
 * Selection rules per strategy set (contract-decisions §4), applied optimistically in the client
 * the same way the server applies them: one selected text per set (selecting another replaces
 * it), any number of images per set, a hard-blocked text cannot be selected.
 */
import type { ImageCandidate, Strategy, TextCandidate } from '../api/types';

export function selectionBlocked(candidate: TextCandidate): boolean {
  return candidate.banned_word_status === 'hard_block';
}

export function applyTextSelection(texts: TextCandidate[], candidateId: number, selected: boolean): TextCandidate[] {
  const target = texts.find((t) => t.candidate_id === candidateId);
  if (!target || (selected && selectionBlocked(target))) return texts;
  return texts.map((t) => {
    if (t.candidate_id === candidateId) return t.is_selected === selected ? t : { ...t, is_selected: selected };
    if (selected && t.strategy === target.strategy && t.is_selected) return { ...t, is_selected: false };
    return t;
  });
}

export function applyImageSelection(images: ImageCandidate[], candidateId: number, selected: boolean): ImageCandidate[] {
  return images.map((i) => (i.candidate_id === candidateId && i.is_selected !== selected ? { ...i, is_selected: selected } : i));
}

/** Submit for review needs at least one selected text. */
export function canSubmitForReview(texts: TextCandidate[]): boolean {
  return texts.some((t) => t.is_selected);
}

export type SetKey = Strategy | 'none';

/** Candidates by set; texts of older data without a strategy form their own group. */
export function groupBySet<T extends { strategy: Strategy | null }>(items: T[]): Map<SetKey, T[]> {
  const groups = new Map<SetKey, T[]>();
  for (const item of items) {
    const key: SetKey = item.strategy ?? 'none';
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return groups;
}

/** The text a set ships with, as the server letters its cover: the selected one, else the best-scored (earliest of equals). */
export function chosenText(texts: TextCandidate[]): TextCandidate | undefined {
  return texts.reduce<TextCandidate | undefined>((best, t) => {
    if (!best) return t;
    if (t.is_selected !== best.is_selected) return t.is_selected ? t : best;
    return t.score.total > best.score.total || (t.score.total === best.score.total && t.candidate_id < best.candidate_id) ? t : best;
  }, undefined);
}

/**
 * The images a set's package would hold, in swipe order (as the server plans a package): the
 * selected images when the task has any selected, else all; one per position, the newest.
 */
export function deliveredImages(allImages: ImageCandidate[], strategy: Strategy): ImageCandidate[] {
  const finished = allImages.filter((i) => i.status === 'done' && i.url);
  const pool = finished.some((i) => i.is_selected) ? finished.filter((i) => i.is_selected) : finished;
  const bySeq = new Map<number, ImageCandidate>();
  for (const image of pool.filter((i) => i.strategy === strategy)) {
    const current = bySeq.get(image.seq);
    if (!current || image.candidate_id > current.candidate_id) bySeq.set(image.seq, image);
  }
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}
