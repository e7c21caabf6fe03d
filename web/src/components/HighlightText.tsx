import { Fragment, useMemo, type ReactNode } from 'react';
import type { TextCandidate } from '../api/types';
import { LEVEL_MARK } from './tags';

/** Where the server's banned-word check found a word in one part of a note (`banned_hits`). */
export type BannedHit = TextCandidate['banned_hits'][number];

/** The hits of one part of a note: a field, or one tag of it. */
export function hitsIn(hits: readonly BannedHit[], field: BannedHit['field'], tagIndex: number | null = null): BannedHit[] {
  return hits.filter((h) => h.field === field && h.tag_index === tagIndex);
}

/**
 * The text with what the server's check found marked in its level's colour: its offsets, not a
 * second matching here, so the marks are exactly the words that set the note's status (spaced,
 * folded or traditional forms included).
 */
export function HighlightText({ text, hits }: { text: string; hits: readonly BannedHit[] }) {
  const parts = useMemo(() => {
    const out: ReactNode[] = [];
    let at = 0;
    for (const hit of [...hits].sort((a, b) => a.start - b.start)) {
      // A range the text no longer has (or one overlapping the last) is not marked.
      if (hit.start < at || hit.end > text.length || hit.end <= hit.start) continue;
      if (hit.start > at) out.push(<Fragment key={`t${at}`}>{text.slice(at, hit.start)}</Fragment>);
      out.push(
        <mark key={`m${hit.start}`} data-level={hit.level} title={hit.word} style={{ background: LEVEL_MARK[hit.level], padding: '0 2px' }}>
          {text.slice(hit.start, hit.end)}
        </mark>,
      );
      at = hit.end;
    }
    if (at < text.length) out.push(<Fragment key={`t${at}`}>{text.slice(at)}</Fragment>);
    return out;
  }, [text, hits]);
  return <span style={{ whiteSpace: 'pre-wrap' }}>{parts}</span>;
}
