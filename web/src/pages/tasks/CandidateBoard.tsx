import { CheckCircleFilled, EditOutlined, MobileOutlined } from '@ant-design/icons';
import { Button, Card, Col, Collapse, Empty, Image, Modal, Row, Space, Switch, Tag, Tooltip, Typography } from 'antd';
import { Fragment, memo, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ImageCandidate, TextCandidate } from '../../api/types';
import { CopyButton } from '../../components/CopyButton';
import { HighlightText, hitsIn } from '../../components/HighlightText';
import { PASS_LINE } from '../../api/constants';
import { ScoreBreakdown } from '../../components/ScoreBreakdown';
import { chosenText, deliveredImages, groupBySet, selectionBlocked, type SetKey } from '../../components/selection';
import { DemoTag, type DemoOrigin } from '../../components/demo';
import { BannedStatusTag, tone } from '../../components/tags';
import { useLive, type LiveStore } from '../../hooks/taskStream';
import { ImageTile, type ImageActions } from './ImageTile';
import { PhonePreview } from './PhonePreview';

export interface BoardActions extends ImageActions {
  canEdit: boolean;
  /** What of the task's AI output the offline demo provider made: marked wherever it shows. */
  demo: DemoOrigin;
  onSelectText: (c: TextCandidate, selected: boolean) => void;
  onEdit: (c: TextCandidate) => void;
}

const TextCard = memo(function TextCard({ c, actions }: { c: TextCandidate; actions: BoardActions }) {
  const { t } = useTranslation();
  const blocked = selectionBlocked(c);
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
          {actions.demo.text && c.source === 'ai' && <DemoTag />}
          <BannedStatusTag status={c.banned_word_status} />
          {c.source === 'import' && <Tag>{t('candidate.imported')}</Tag>}
          {c.edited && <Tag color={tone('purple')}>{t('candidate.edited')}</Tag>}
        </Space>
      }
    >
      <Typography.Title level={3} style={{ marginTop: 0, fontSize: 16 }}>
        <HighlightText text={c.title} hits={hitsIn(c.banned_hits, 'title')} />
      </Typography.Title>
      <Typography.Paragraph tabIndex={0} style={{ maxHeight: 220, overflow: 'auto' }}>
        <HighlightText text={c.content} hits={hitsIn(c.banned_hits, 'content')} />
      </Typography.Paragraph>
      {c.tags.length > 0 && (
        <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
          {c.tags.map((tag, i) => (
            <Fragment key={i}>
              {i > 0 && ' '}#<HighlightText text={tag} hits={hitsIn(c.banned_hits, 'tags', i)} />
            </Fragment>
          ))}
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
        {actions.canEdit && (
          <Button size="small" icon={<EditOutlined aria-hidden />} onClick={() => actions.onEdit(c)}>
            {t('candidate.edit')}
          </Button>
        )}
        <NoteCopyButtons c={c} />
      </Space>
    </Card>
  );
});

function NoteCopyButtons({ c }: { c: TextCandidate }) {
  const { t } = useTranslation();
  const tagsText = c.tags.map((tag) => `#${tag}`).join(' ');
  return (
    <>
      <CopyButton text={c.title} label={t('copy.title')} />
      <CopyButton text={c.content} label={t('copy.body')} />
      <CopyButton text={`${c.content}\n\n${tagsText}`} label={t('copy.bodyTags')} />
    </>
  );
}

function byId<T extends { candidate_id: number }>(base: T[], live: Record<number, T>): T[] {
  // Server state (task detail) is authoritative; streamed candidates fill in until it is refetched.
  const known = new Set(base.map((c) => c.candidate_id));
  return [...base, ...Object.values(live).filter((c) => !known.has(c.candidate_id))];
}

/** Lowest and highest total score of a set's texts. */
function scoreRange(texts: TextCandidate[]): { min: number; max: number } | undefined {
  if (texts.length === 0) return undefined;
  const totals = texts.map((c) => c.score.total);
  return { min: Math.min(...totals), max: Math.max(...totals) };
}

/**
 * One strategy set as a working surface: its name and score range, the text it ships with beside
 * its images at a useful size (each with its own actions), a phone preview, and every text of the
 * set sorted by score behind a collapse, with a pass-only filter.
 */
function SetSection({ k, texts, images, actions }: { k: SetKey; texts: TextCandidate[]; images: ImageCandidate[]; actions: BoardActions }) {
  const { t } = useTranslation();
  const [passOnly, setPassOnly] = useState(false);
  const [previewing, setPreviewing] = useState(false);
  const sorted = useMemo(() => texts.slice().sort((a, b) => b.score.total - a.score.total || a.candidate_id - b.candidate_id), [texts]);
  const shown = passOnly ? sorted.filter((c) => c.score.total >= PASS_LINE) : sorted;
  const chosen = chosenText(texts);
  const range = scoreRange(texts);
  const slots = images.slice().sort((a, b) => a.seq - b.seq || a.candidate_id - b.candidate_id);
  const delivered = k === 'none' ? [] : deliveredImages(images, k);
  const swipe = delivered.map((i) => ({ url: i.url!, alt: `${i.seq} ${t(`imageRole.${i.role}`)}` }));
  const chosenIsDemo = Boolean(chosen && actions.demo.text && chosen.source === 'ai');
  const previewIsDemo = chosenIsDemo || (actions.demo.image && delivered.some((i) => i.source === 'ai'));
  const title = k === 'none' ? t('candidate.noSet') : t('editing.setTitle', { set: k, name: t(`editing.strategy.${k}`) });
  return (
    <section data-testid={`set-${k}`} aria-label={title} style={{ marginBottom: 24 }}>
      <Space wrap align="center" style={{ marginBottom: 8 }}>
        <Typography.Title level={2} style={{ margin: 0, fontSize: 20 }}>
          {title}
        </Typography.Title>
        {range && (
          <Tag color={tone(range.max >= PASS_LINE ? 'green' : 'orange')} data-testid="score-range">
            {t('editing.scoreRange', range)}
          </Tag>
        )}
        <Typography.Text type="secondary">{t('editing.textCount', { count: texts.length })}</Typography.Text>
      </Space>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={9}>
          {chosen ? (
            <Card
              size="small"
              data-testid="chosen-text"
              data-candidate-id={chosen.candidate_id}
              title={chosen.is_selected ? t('editing.chosen') : t('editing.best')}
              extra={
                <Space size={4}>
                  {chosenIsDemo && <DemoTag />}
                  <Tag color={tone(chosen.score.total >= PASS_LINE ? 'green' : 'orange')}>{chosen.score.total}</Tag>
                </Space>
              }
            >
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {t('editing.coverTitle')}：{chosen.cover_title}
              </Typography.Text>
              <Typography.Title level={3} style={{ marginTop: 4, fontSize: 16 }}>
                <HighlightText text={chosen.title} hits={hitsIn(chosen.banned_hits, 'title')} />
              </Typography.Title>
              <Typography.Paragraph tabIndex={0} style={{ whiteSpace: 'pre-wrap', maxHeight: 260, overflow: 'auto' }}>
                <HighlightText text={chosen.content} hits={hitsIn(chosen.banned_hits, 'content')} />
              </Typography.Paragraph>
              <Typography.Paragraph type="secondary">{chosen.tags.map((tag) => `#${tag}`).join(' ')}</Typography.Paragraph>
              <Space wrap>
                {actions.canEdit && (
                  <Button size="small" icon={<EditOutlined aria-hidden />} onClick={() => actions.onEdit(chosen)}>
                    {t('candidate.edit')}
                  </Button>
                )}
                <Button size="small" icon={<MobileOutlined aria-hidden />} onClick={() => setPreviewing(true)}>
                  {t('editing.preview')}
                </Button>
                <NoteCopyButtons c={chosen} />
              </Space>
            </Card>
          ) : (
            <Empty description={t('candidate.none')} />
          )}
        </Col>
        <Col xs={24} lg={15}>
          {slots.length > 0 && (
            <Image.PreviewGroup>
              <Space wrap align="start" size={12}>
                {slots.map((c) => (
                  <ImageTile key={c.candidate_id} c={c} actions={actions} demo={actions.demo.image} />
                ))}
              </Space>
            </Image.PreviewGroup>
          )}
        </Col>
      </Row>
      {sorted.length > 0 && (
        <Collapse
          style={{ marginTop: 12 }}
          items={[
            {
              key: 'texts',
              label: t('editing.allTexts', { count: sorted.length }),
              children: (
                <>
                  <label style={{ display: 'inline-flex', gap: 8, alignItems: 'center', marginBottom: 12 }}>
                    <Switch size="small" checked={passOnly} onChange={setPassOnly} aria-label={t('editing.passOnly')} />
                    {t('editing.passOnly')}
                  </label>
                  {shown.length > 0 ? shown.map((c) => <TextCard key={c.candidate_id} c={c} actions={actions} />) : <Empty description={t('editing.noPassing')} />}
                </>
              ),
            },
          ]}
        />
      )}
      <Modal open={previewing} title={t('editing.previewTitle')} footer={null} onCancel={() => setPreviewing(false)} width={360}>
        {chosen && <PhonePreview label={title} note={chosen} images={swipe} demo={previewIsDemo} />}
      </Modal>
    </section>
  );
}

export function CandidateBoard({
  texts,
  images,
  store,
  actions,
}: {
  texts: TextCandidate[];
  images: ImageCandidate[];
  store: LiveStore;
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
    <>
      {keys.map((k) => (
        <SetSection key={k} k={k} texts={textSets.get(k) ?? []} images={imageSets.get(k) ?? []} actions={actions} />
      ))}
    </>
  );
}
