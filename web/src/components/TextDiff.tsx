import { diffWords, type ChangeObject } from 'diff';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';

/** A word segmenter for Chinese where the runtime has one (every current browser, Node 20): words, not characters, are compared. */
const segmenter = typeof Intl !== 'undefined' && 'Segmenter' in Intl ? new Intl.Segmenter('zh', { granularity: 'word' }) : undefined;

/** What changed from `before` to `after`, word by word (jsdiff). */
export function wordChanges(before: string, after: string): ChangeObject<string>[] {
  return diffWords(before, after, segmenter ? { intlSegmenter: segmenter } : {});
}

export const INSERTED_STYLE = { background: '#d9f7be', color: '#135200', textDecoration: 'none' } as const;
export const DELETED_STYLE = { background: '#ffccc7', color: '#820014' } as const;

/**
 * `before` against `after` with additions and removals marked in place (`<ins>`, `<del>`, which
 * screen readers announce too); nothing but "unchanged" when they are the same.
 */
export function TextDiff({ before, after, testId }: { before: string; after: string; testId?: string }) {
  const { t } = useTranslation();
  const changes = useMemo(() => wordChanges(before, after), [before, after]);
  if (before === after) {
    return (
      <span data-testid={testId} data-changed="false" style={{ color: 'rgba(0,0,0,0.55)' }}>
        {t('review2.diff.unchanged')}
      </span>
    );
  }
  return (
    <span data-testid={testId} data-changed="true" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
      {changes.map((c, i) =>
        c.added ? (
          <ins key={i} style={INSERTED_STYLE} title={t('review2.diff.added')}>
            {c.value}
          </ins>
        ) : c.removed ? (
          <del key={i} style={DELETED_STYLE} title={t('review2.diff.removed')}>
            {c.value}
          </del>
        ) : (
          <span key={i}>{c.value}</span>
        ),
      )}
    </span>
  );
}
