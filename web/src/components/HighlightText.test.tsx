import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { HighlightText, hitsIn, type BannedHit } from './HighlightText';

const hit = (over: Partial<BannedHit>): BannedHit => ({ field: 'content', tag_index: null, start: 0, end: 1, word: 'w', level: 'soft_warn', ...over });
const marks = (container: HTMLElement) => [...container.querySelectorAll('mark')].map((m) => [m.textContent, m.dataset.level]);

describe('HighlightText', () => {
  it('marks exactly the ranges the server found, spaced forms included, and keeps the rest as it is', () => {
    const text = '真的是国 家 级好物，最好用';
    const { container } = render(
      <HighlightText text={text} hits={[hit({ start: 11, end: 13, word: '最好', level: 'soft_warn' }), hit({ start: 3, end: 8, word: '国家级', level: 'hard_block' })]} />,
    );
    expect(marks(container)).toEqual([
      ['国 家 级', 'hard_block'],
      ['最好', 'soft_warn'],
    ]);
    expect(container.textContent).toBe(text);
  });

  it('marks nothing the server did not find, and skips ranges the text does not have', () => {
    const { container } = render(<HighlightText text="最近很忙" hits={[hit({ start: 2, end: 9 })]} />);
    expect(marks(container)).toEqual([]);
    expect(container.textContent).toBe('最近很忙');
  });

  it('picks the hits of one part of the note', () => {
    const hits = [hit({ field: 'title' }), hit({ field: 'tags', tag_index: 1 }), hit({ field: 'tags', tag_index: 0 })];
    expect(hitsIn(hits, 'title')).toEqual([hits[0]]);
    expect(hitsIn(hits, 'tags', 1)).toEqual([hits[1]]);
    expect(hitsIn(hits, 'content')).toEqual([]);
  });
});
