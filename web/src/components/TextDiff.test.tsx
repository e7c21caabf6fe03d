import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import '../i18n';
import { TextDiff, wordChanges } from './TextDiff';

describe('the review diff', () => {
  it('marks what was added and what was removed, word by word', () => {
    const { container } = render(<TextDiff before="这个杯子保温很好，推荐给大家" after="这个杯子保温六小时，推荐给通勤的大家" testId="d" />);
    const added = [...container.querySelectorAll('ins')].map((n) => n.textContent).join('|');
    const removed = [...container.querySelectorAll('del')].map((n) => n.textContent).join('|');
    expect(added).toContain('六');
    expect(added).toContain('通勤');
    expect(removed).toContain('很好');
    // Unchanged words stay plain, in order: the text after the change reads from the kept parts and the insertions.
    const after = [...container.querySelectorAll('[data-testid="d"] > span, [data-testid="d"] > ins')].map((n) => n.textContent).join('');
    expect(after).toBe('这个杯子保温六小时，推荐给通勤的大家');
    expect(screen.getByTestId('d').dataset.changed).toBe('true');
  });

  it('says unchanged when nothing changed', () => {
    render(<TextDiff before="一样" after="一样" testId="same" />);
    expect(screen.getByTestId('same').textContent).toBe('未改动');
    expect(screen.getByTestId('same').dataset.changed).toBe('false');
  });

  it('compares English by words, not letters', () => {
    const parts = wordChanges('keeps tea hot', 'keeps coffee hot');
    expect(parts.filter((p) => p.added).map((p) => p.value.trim())).toEqual(['coffee']);
    expect(parts.filter((p) => p.removed).map((p) => p.value.trim())).toEqual(['tea']);
  });
});
