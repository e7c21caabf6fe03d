import type { BannedLevel, BannedStatus, BannedWordMatcher } from './banned-words.js';
import { limitFlags } from './limits.js';
import { heuristicScore, type ScoredText } from './scoring.js';

/** The parts of a note that are published, hence checked against the banned-word library. */
export interface NoteText {
  title: string;
  content: string;
  tags: string[];
  cover_title: string;
}

/** A hit as stored on a candidate: offsets into the note's parts joined by '\n' (see noteDocument). */
export interface StoredBannedHit {
  word: string;
  level: BannedLevel;
  start: number;
  end: number;
}

export interface CheckedNote {
  note: NoteText;
  status: BannedStatus;
  hits: StoredBannedHit[];
}

const SEVERITY: BannedStatus[] = ['pass', 'auto_fixed', 'soft_warn', 'hard_block'];

/** The text the stored hit offsets refer to: title, content, tags (space-separated), cover title. */
export function noteDocument(note: NoteText): string {
  return [note.title, note.content, note.tags.join(' '), note.cover_title].join('\n');
}

/** A stored hit placed in the part of the note it is in; offsets are into that part (a tag: that tag). */
export interface FieldHit {
  field: 'title' | 'content' | 'tags' | 'cover_title';
  /** Which tag, for `field: 'tags'`; null otherwise. */
  tag_index: number | null;
  start: number;
  end: number;
  word: string;
  level: BannedLevel;
}

/**
 * The stored hits of a note (offsets into noteDocument) placed in its parts, so a client marks
 * exactly what the check found instead of matching the words again. Hits of a text that has
 * since changed without a new check (none do: every edit is checked) would fall outside and
 * are left out.
 */
export function hitsByField(note: NoteText, hits: readonly StoredBannedHit[]): FieldHit[] {
  const parts: Array<Pick<FieldHit, 'field' | 'tag_index'> & { text: string }> = [
    { field: 'title', tag_index: null, text: note.title },
    { field: 'content', tag_index: null, text: note.content },
    ...note.tags.map((text, i) => ({ field: 'tags' as const, tag_index: i, text })),
    { field: 'cover_title', tag_index: null, text: note.cover_title },
  ];
  // Each part starts one separator after the one before (noteDocument); a note without tags still has the tags' line.
  const starts: number[] = [];
  let offset = 0;
  parts.forEach((part, i) => {
    const lastTagToCover = part.field === 'cover_title' && note.tags.length === 0;
    if (i > 0) offset += lastTagToCover ? 2 : 1;
    starts.push(offset);
    offset += part.text.length;
  });
  const placed: FieldHit[] = [];
  for (const hit of hits) {
    const i = parts.findIndex((part, k) => hit.start >= starts[k]! && hit.end <= starts[k]! + part.text.length);
    if (i < 0) continue;
    const { field, tag_index } = parts[i]!;
    placed.push({ field, tag_index, start: hit.start - starts[i]!, end: hit.end - starts[i]!, word: hit.word, level: hit.level });
  }
  return placed;
}

/**
 * Runs the matcher over every published part: auto_fix words are replaced in place, soft_warn
 * and hard_block hits remain and set the status (the most severe part wins).
 */
export function checkNote(matcher: BannedWordMatcher, note: NoteText): CheckedNote {
  let status: BannedStatus = 'pass';
  const hits: StoredBannedHit[] = [];
  let offset = 0;
  const fix = (text: string): string => {
    const result = matcher.check(text);
    if (SEVERITY.indexOf(result.status) > SEVERITY.indexOf(status)) status = result.status;
    for (const h of result.hits) hits.push({ word: h.word, level: h.level, start: offset + h.start, end: offset + h.end });
    offset += result.text.length;
    return result.text;
  };
  const sep = () => {
    offset += 1;
  };
  const title = fix(note.title);
  sep();
  const content = fix(note.content);
  sep();
  const tags = note.tags.map((tag, i) => {
    if (i > 0) sep();
    return fix(tag);
  });
  sep();
  const coverTitle = fix(note.cover_title);
  return { note: { title, content, tags, cover_title: coverTitle }, status, hits };
}

export interface EvaluatedNote extends CheckedNote {
  scored: ScoredText;
}

/**
 * Banned-word check then the deterministic score: what a candidate carries when no judge is
 * asked (the `local` provider, imports, edits, and the judge's fallback).
 */
export function evaluateNote(
  matcher: BannedWordMatcher,
  note: NoteText,
  subject: { productName: string; sellingPoints: string[]; theme: string },
): EvaluatedNote {
  const checked = checkNote(matcher, note);
  const scored = heuristicScore({
    title: checked.note.title,
    content: checked.note.content,
    tags: checked.note.tags,
    productName: subject.productName,
    sellingPoints: subject.sellingPoints,
    theme: subject.theme,
    bannedHits: checked.hits,
  });
  const flags = limitFlags(checked.note);
  return { ...checked, scored: flags.length > 0 ? { ...scored, summary: `${scored.summary}${flags.join('；')}。` } : scored };
}
