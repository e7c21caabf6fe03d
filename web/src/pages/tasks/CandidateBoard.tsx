import { CheckCircleFilled, EditOutlined } from '@ant-design/icons';
import { Button, Card, Checkbox, Col, Empty, Image, Row, Space, Tag, Tooltip, Typography } from 'antd';
import { memo, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { ImageCandidate, TextCandidate } from '../../api/types';
import { CopyButton } from '../../components/CopyButton';
import { HighlightText, type WordMark } from '../../components/HighlightText';
import { ScoreBreakdown } from '../../components/ScoreBreakdown';
import { groupBySet, selectionBlocked, type SetKey } from '../../components/selection';
import { BannedStatusTag, tone } from '../../components/tags';
import { Thumb } from '../../components/Thumb';
import { useLive, type LiveStore } from '../../hooks/taskStream';

export interface BoardActions {
  canSelect: boolean;
  canEdit: boolean;
  onSelectText: (c: TextCandidate, selected: boolean) => void;
  onSelectImage: (c: ImageCandidate, selected: boolean) => void;
  onEdit: (c: TextCandidate) => void;
}

const TextCard = memo(function TextCard({ c, words, actions }: { c: TextCandidate; words: WordMark[]; actions: BoardActions }) {
  const { t } = useTranslation();
  const blocked = selectionBlocked(c);
  const tagsText = c.tags.map((tag) => `#${tag}`).join(' ');
  return (
    <Card
      size="small"
      data-testid="text-candidate"
      data-candidate-id={c.candidate_id}
      data-selected={c.is_selected}
      style={{ marginBottom: 12, borderColor: c.is_selected ? '#ad2102' : undefined }}
      title={
        <Space size={4} wrap>
          {c.is_selected && <CheckCircleFilled style={{ color: '#ad2102' }} aria-label={t('candidate.selected')} />}
          <span>{c.angle_label}</span>
        </Space>
      }
      extra={
        <Space size={4}>
          <BannedStatusTag status={c.banned_word_status} />
          {c.source === 'import' && <Tag>{t('candidate.imported')}</Tag>}
          {c.edited && <Tag color={tone('purple')}>{t('candidate.edited')}</Tag>}
        </Space>
      }
    >
      <Typography.Title level={3} style={{ marginTop: 0, fontSize: 16 }}>
        <HighlightText text={c.title} words={words} />
      </Typography.Title>
      <Typography.Paragraph tabIndex={0} style={{ maxHeight: 220, overflow: 'auto' }}>
        <HighlightText text={c.content} words={words} />
      </Typography.Paragraph>
      {c.tags.length > 0 && (
        <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
          {tagsText}
        </Typography.Paragraph>
      )}
      <ScoreBreakdown score={c.score} />
      {(c.verdict || c.summary) && (
        <Typography.Paragraph type="secondary" style={{ marginTop: 8, fontSize: 12 }}>
          {[c.verdict, c.summary].filter(Boolean).join(' · ')}
        </Typography.Paragraph>
      )}
      <Space wrap style={{ marginTop: 8 }}>
        <Tooltip title={blocked ? t('candidate.blocked') : undefined}>
          <Button
            type={c.is_selected ? 'default' : 'primary'}
            size="small"
            disabled={!actions.canSelect || (blocked && !c.is_selected)}
            onClick={() => actions.onSelectText(c, !c.is_selected)}
          >
            {c.is_selected ? t('candidate.deselect') : t('candidate.select')}
          </Button>
        </Tooltip>
        <Button size="small" icon={<EditOutlined aria-hidden />} disabled={!actions.canEdit} onClick={() => actions.onEdit(c)}>
          {t('candidate.edit')}
        </Button>
        <CopyButton text={c.title} label={t('copy.title')} />
        <CopyButton text={c.content} label={t('copy.body')} />
        <CopyButton text={tagsText} label={t('copy.tags')} />
      </Space>
    </Card>
  );
});

function ImageTile({ c, actions }: { c: ImageCandidate; actions: BoardActions }) {
  const { t } = useTranslation();
  const label = `${c.strategy}-${c.seq} ${t(`imageRole.${c.role}`)}`;
  return (
    <div data-testid="image-candidate" data-selected={c.is_selected} style={{ width: 120 }}>
      <Thumb url={c.url ?? ''} alt={label} />
      <Checkbox
        checked={c.is_selected}
        disabled={!actions.canSelect}
        onChange={(e) => actions.onSelectImage(c, e.target.checked)}
        style={{ marginTop: 4 }}
      >
        <span style={{ fontSize: 12 }}>
          {label}
          {c.is_regen && ` · ${t('candidate.regen')}`}
        </span>
      </Checkbox>
      {c.ai_visual_score !== null && (
        <Tooltip title={c.ai_visual_note ?? undefined}>
          <Typography.Text type="secondary" style={{ fontSize: 12, display: 'block' }}>
            {t('candidate.visualScore', { score: c.ai_visual_score })}
          </Typography.Text>
        </Tooltip>
      )}
    </div>
  );
}

function byId<T extends { candidate_id: number }>(base: T[], live: Record<number, T>): T[] {
  // Server state (task detail) is authoritative; streamed candidates fill in until it is refetched.
  const known = new Set(base.map((c) => c.candidate_id));
  return [...base, ...Object.values(live).filter((c) => !known.has(c.candidate_id))];
}

export function CandidateBoard({
  texts,
  images,
  store,
  words,
  actions,
}: {
  texts: TextCandidate[];
  images: ImageCandidate[];
  store: LiveStore;
  words: WordMark[];
  actions: BoardActions;
}) {
  const { t } = useTranslation();
  const liveTexts = useLive(store, (s) => s.texts);
  const liveImages = useLive(store, (s) => s.images);
  const textSets = useMemo(() => groupBySet(byId(texts, liveTexts)), [texts, liveTexts]);
  const imageSets = useMemo(() => groupBySet(byId(images, liveImages)), [images, liveImages]);
  const keys: SetKey[] = (['A', 'B', 'C', 'none'] as SetKey[]).filter((k) => textSets.has(k) || imageSets.has(k));
  if (keys.length === 0) return <Empty description={t('candidate.none')} />;
  return (
    <Row gutter={16}>
      {keys.map((k) => {
        const setImages = (imageSets.get(k) ?? []).slice().sort((a, b) => a.seq - b.seq);
        return (
          <Col key={k} xs={24} lg={24 / Math.min(keys.length, 3)} data-testid={`set-${k}`}>
            <Typography.Title level={2} style={{ fontSize: 20 }}>{k === 'none' ? t('candidate.noSet') : t('candidate.set', { set: k })}</Typography.Title>
            {(textSets.get(k) ?? []).map((c) => (
              <TextCard key={c.candidate_id} c={c} words={words} actions={actions} />
            ))}
            {setImages.length > 0 && (
              <Image.PreviewGroup>
                <Space wrap align="start">
                  {setImages.map((c) => (
                    <ImageTile key={c.candidate_id} c={c} actions={actions} />
                  ))}
                </Space>
              </Image.PreviewGroup>
            )}
          </Col>
        );
      })}
    </Row>
  );
}
