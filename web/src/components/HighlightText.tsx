import { Fragment, useMemo } from 'react';
import type { BannedLevel } from '../api/types';
import { LEVEL_MARK } from './tags';

export interface WordMark {
  word: string;
  level: BannedLevel;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The text with every banned word of the workspace marked in its level's colour. */
export function HighlightText({ text, words }: { text: string; words: WordMark[] }) {
  const parts = useMemo(() => {
    const usable = words.filter((w) => w.word.length > 0).sort((a, b) => b.word.length - a.word.length);
    if (usable.length === 0) return [text];
    const levelOf = new Map(usable.map((w) => [w.word.toLowerCase(), w.level]));
    const pattern = new RegExp(`(${usable.map((w) => escapeRegExp(w.word)).join('|')})`, 'gi');
    return text.split(pattern).map((part, i) => {
      const level = i % 2 === 1 ? levelOf.get(part.toLowerCase()) : undefined;
      return level ? (
        <mark key={i} data-level={level} style={{ background: LEVEL_MARK[level], padding: '0 2px' }}>
          {part}
        </mark>
      ) : (
        <Fragment key={i}>{part}</Fragment>
      );
    });
  }, [text, words]);
  return <span style={{ whiteSpace: 'pre-wrap' }}>{parts}</span>;
}
