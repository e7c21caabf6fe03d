import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import '../i18n';
import type { Score } from '../api/types';
import { PASS_LINE, SCORE_MAX } from '../api/constants';
import { ScoreBreakdown } from './ScoreBreakdown';

const score = (over: Partial<Score>): Score => ({ title: 20, emotion: 22, selling: 18, keyword: 15, compliance: 5, total: 80, ...over });

describe('ScoreBreakdown', () => {
  it('shows each of the five dimensions against its maximum', () => {
    render(<ScoreBreakdown score={score({})} />);
    expect(within(screen.getByTestId('score-title')).getByText('20/25')).toBeTruthy();
    expect(within(screen.getByTestId('score-emotion')).getByText('22/25')).toBeTruthy();
    expect(within(screen.getByTestId('score-selling')).getByText('18/25')).toBeTruthy();
    expect(within(screen.getByTestId('score-keyword')).getByText('15/20')).toBeTruthy();
    expect(within(screen.getByTestId('score-compliance')).getByText('5/5')).toBeTruthy();
    expect(screen.getByTestId('score-total').textContent).toBe('80/100');
    expect(SCORE_MAX).toEqual({ title: 25, emotion: 25, selling: 25, keyword: 20, compliance: 5 });
  });

  it('marks the pass line at 80 and says whether the total reaches it', () => {
    const { rerender } = render(<ScoreBreakdown score={score({ total: PASS_LINE })} />);
    const line = screen.getByTestId('pass-line');
    expect(line.style.left).toBe('80%');
    expect(line.getAttribute('title')).toContain('80');
    expect(screen.getByText('达标')).toBeTruthy();
    rerender(<ScoreBreakdown score={score({ total: 79 })} />);
    expect(screen.getByText('未达标')).toBeTruthy();
    expect(screen.queryByText('达标')).toBeNull();
  });

  it('labels every bar with its value and maximum for screen readers', () => {
    render(<ScoreBreakdown score={score({ keyword: 12, total: 65 })} />);
    expect(screen.getByLabelText('关键词 12/20')).toBeTruthy();
    expect(screen.getByLabelText('总分 65/100')).toBeTruthy();
  });

  it('keeps a bar within its track when a value exceeds the maximum', () => {
    render(<ScoreBreakdown score={score({ compliance: 9 })} />);
    const bar = screen.getByLabelText('合规 9/5');
    expect(bar.getAttribute('aria-valuenow')).toBe('100');
  });
});
