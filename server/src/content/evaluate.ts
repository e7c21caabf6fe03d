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
