import { Progress, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { PASS_LINE, SCORE_MAX } from '../api/constants';
import type { Score } from '../api/types';
import { tone } from './tags';

export const SCORE_DIMENSIONS = Object.keys(SCORE_MAX) as (keyof typeof SCORE_MAX)[];
/** The total is the sum of the dimensions' maxima. */
const TOTAL_MAX = SCORE_DIMENSIONS.reduce((sum, dim) => sum + SCORE_MAX[dim], 0);

function percent(value: number, max: number): number {
  return Math.max(0, Math.min(100, (value / max) * 100));
}

/** The five dimensions against their maxima, and the total against the pass line. */
export function ScoreBreakdown({ score, compact = false }: { score: Score; compact?: boolean }) {
  const { t } = useTranslation();
  const passed = score.total >= PASS_LINE;
  return (
    <div data-testid="score-breakdown">
      <div style={{ display: 'flex', alignItems: 'center', gap: 8 }}>
        <Typography.Text strong>{t('score.total')}</Typography.Text>
        <span data-testid="score-total">
          {score.total}/{TOTAL_MAX}
        </span>
        <Tag color={tone(passed ? 'green' : 'orange')}>{passed ? t('score.passed') : t('score.belowLine')}</Tag>
      </div>
      <div style={{ position: 'relative' }}>
        <Progress
          percent={percent(score.total, TOTAL_MAX)}
          showInfo={false}
          strokeColor={passed ? '#52c41a' : '#fa8c16'}
          aria-label={`${t('score.total')} ${score.total}/${TOTAL_MAX}`}
        />
        <span
          data-testid="pass-line"
          title={t('score.passLine', { line: PASS_LINE })}
          style={{ position: 'absolute', left: `${PASS_LINE}%`, top: 2, bottom: 2, borderLeft: '2px dashed #cf1322' }}
        />
      </div>
      {!compact &&
        SCORE_DIMENSIONS.map((dim) => (
          <div key={dim} data-testid={`score-${dim}`} style={{ display: 'grid', gridTemplateColumns: '5.5em 1fr 3.5em', alignItems: 'center', gap: 6 }}>
            <Typography.Text type="secondary">{t(`score.${dim}`)}</Typography.Text>
            <Progress percent={percent(score[dim], SCORE_MAX[dim])} showInfo={false} size="small" aria-label={`${t(`score.${dim}`)} ${score[dim]}/${SCORE_MAX[dim]}`} />
            <span>
              {score[dim]}/{SCORE_MAX[dim]}
            </span>
          </div>
        ))}
    </div>
  );
}
