import { CheckCircleFilled, EditOutlined, MobileOutlined } from '@ant-design/icons';
import { Button, Card, Empty, Image, Modal, Space, Switch, Tag, Tooltip, Typography } from 'antd';
import { Fragment, memo, useMemo, useRef, useState } from 'react';
import type { TFunction } from 'i18next';
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
import { slotsOf } from './versions';
import './desk.css';
import { PhonePreview } from './PhonePreview';

export interface BoardActions extends ImageActions {
  canEdit: boolean;
  /** What of the task's AI output the offline demo provider made: marked wherever it shows. */
  demo: DemoOrigin;
  onSelectText: (c: TextCandidate, selected: boolean) => void;
  onEdit: (c: TextCandidate) => void;
}

const TextCard = memo(function TextCard({ c, actions, chosen = false, onPreview }: { c: TextCandidate; actions: BoardActions; chosen?: boolean; onPreview?: () => void }) {
  const { t } = useTranslation();
  const blocked = selectionBlocked(c);
  const passes = c.score.total >= PASS_LINE;
  return (
    <Card
      size="small"
      data-testid={chosen ? 'chosen-text' : 'text-candidate'}
      data-candidate-id={c.candidate_id}
      data-selected={c.is_selected}
      style={{ marginBottom: 12, borderColor: c.is_selected ? '#ad2102' : undefined }}
      title={
        <Space size={4} wrap>
          {c.is_selected && <CheckCircleFilled style={{ color: '#ad2102' }} aria-label={t('candidate.selected')} />}
          <span>{chosen ? (c.is_selected ? t('editing.chosen') : t('editing.best')) : c.angle_label}</span>
        </Space>
      }
      extra={
        <Space size={4} wrap style={{ justifyContent: 'flex-end' }}>
          <Tag color={tone(passes ? 'green' : 'orange')} data-testid="text-score" style={{ marginInlineEnd: 0 }}>
            {t('desk.score', { score: c.score.total })}
          </Tag>
          {actions.demo.text && c.source === 'ai' && <DemoTag />}
          <BannedStatusTag status={c.banned_word_status} />
          {c.source === 'import' && <Tag>{t('candidate.imported')}</Tag>}
          {c.edited && <Tag color={tone('purple')}>{t('candidate.edited')}</Tag>}
        </Space>
      }
    >
      {chosen && (
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {t('editing.coverTitle')}：{c.cover_title}
        </Typography.Text>
      )}
      <Typography.Title level={3} style={{ marginTop: 0, fontSize: 16 }}>
        <HighlightText text={c.title} hits={hitsIn(c.banned_hits, 'title')} />
      </Typography.Title>
      {c.banned_hits.length > 0 && (
        <Typography.Paragraph type={c.banned_word_status === 'hard_block' ? 'danger' : 'warning'} style={{ fontSize: 12, marginBottom: 6 }} data-testid="text-warnings">
          {t('desk.hits', { words: [...new Set(c.banned_hits.map((h) => h.word))].join('、') })}
        </Typography.Paragraph>
      )}
      <Typography.Paragraph tabIndex={0} style={{ maxHeight: chosen ? 260 : 160, overflow: 'auto', whiteSpace: 'pre-wrap' }}>
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
      {chosen ? <ScoreBreakdown score={c.score} /> : null}
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
        {onPreview && (
          <Button size="small" icon={<MobileOutlined aria-hidden />} onClick={onPreview}>
            {t('editing.preview')}
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

export function byId<T extends { candidate_id: number }>(base: T[], live: Record<number, T>): T[] {
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

const setTitle = (t: TFunction, k: SetKey) => (k === 'none' ? t('candidate.noSet') : t('editing.setTitle', { set: k, name: t(`editing.strategy.${k}`) }));

/**
 * One strategy set as a column: its name and score range, the text it ships with (the selected
 * one, else the best) and every other text sorted by score, each selectable in one click where
 * it is shown, then its images as slots (one tile per slot with its versions).
 */
function SetSection({ k, texts, images, actions }: { k: SetKey; texts: TextCandidate[]; images: ImageCandidate[]; actions: BoardActions }) {
  const { t } = useTranslation();
  const [passOnly, setPassOnly] = useState(false);
  const [previewing, setPreviewing] = useState(false);
  const chosen = chosenText(texts);
  const others = useMemo(
    () => texts.filter((c) => c !== chosen).sort((a, b) => b.score.total - a.score.total || a.candidate_id - b.candidate_id),
    [texts, chosen],
  );
  const shown = passOnly ? others.filter((c) => c.score.total >= PASS_LINE) : others;
  const range = scoreRange(texts);
  const slots = useMemo(() => slotsOf(images), [images]);
  const delivered = k === 'none' ? [] : deliveredImages(images, k);
  const swipe = delivered.map((i) => ({ url: i.url!, alt: `${i.seq} ${t(`imageRole.${i.role}`)}` }));
  const chosenIsDemo = Boolean(chosen && actions.demo.text && chosen.source === 'ai');
  const previewIsDemo = chosenIsDemo || (actions.demo.image && delivered.some((i) => i.source === 'ai'));
  const title = setTitle(t, k);
  return (
    <section data-testid={`set-${k}`} aria-label={title} className="desk-set">
      <Space wrap align="center" style={{ marginBottom: 8 }}>
        <Typography.Title level={2} style={{ margin: 0, fontSize: 18 }}>
          {title}
        </Typography.Title>
        {range && (
          <Tag color={tone(range.max >= PASS_LINE ? 'green' : 'orange')} data-testid="score-range">
            {t('editing.scoreRange', range)}
          </Tag>
        )}
        <Typography.Text type="secondary">{t('editing.textCount', { count: texts.length })}</Typography.Text>
      </Space>
      {chosen ? <TextCard c={chosen} actions={actions} chosen onPreview={() => setPreviewing(true)} /> : <Empty description={t('candidate.none')} />}
      {slots.length > 0 && (
        <Image.PreviewGroup>
          <div className="desk-slots" data-testid="set-images">
            {slots.map((slot) => (
              <ImageTile key={slot.key} slot={slot} actions={actions} demo={actions.demo.image} />
            ))}
          </div>
        </Image.PreviewGroup>
      )}
      {others.length > 0 && (
        <div style={{ marginTop: 16 }}>
          <Space wrap style={{ marginBottom: 8 }}>
            <Typography.Text strong>{t('desk.otherTexts', { count: others.length })}</Typography.Text>
            <label style={{ display: 'inline-flex', gap: 8, alignItems: 'center' }}>
              <Switch size="small" checked={passOnly} onChange={setPassOnly} aria-label={t('editing.passOnly')} />
              {t('editing.passOnly')}
            </label>
          </Space>
          {shown.length > 0 ? shown.map((c) => <TextCard key={c.candidate_id} c={c} actions={actions} />) : <Empty description={t('editing.noPassing')} />}
        </div>
      )}
      <Modal open={previewing} title={t('editing.previewTitle')} footer={null} onCancel={() => setPreviewing(false)} width={360}>
        {chosen && <PhonePreview label={title} note={chosen} images={swipe} demo={previewIsDemo} />}
      </Modal>
    </section>
  );
}

/**
 * The sets side by side on a desk (≥ 992 px, one column each); on a phone one set at a time,
 * swiped sideways (scroll snap) or picked with the tabs above. The same DOM either way: only
 * the layout differs, so nothing is hidden from a narrow screen but off to the side.
 */
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
  const strip = useRef<HTMLDivElement>(null);
  const settle = useRef<ReturnType<typeof setTimeout>>(undefined);
  const [active, setActive] = useState(0);
  if (keys.length === 0) return <Empty description={t('candidate.none')} />;
  const show = (index: number) => {
    setActive(index);
    const el = strip.current;
    const target = el?.children[index] as HTMLElement | undefined;
    if (el && target) el.scrollTo({ left: target.offsetLeft - el.offsetLeft, behavior: 'smooth' });
  };
  return (
    <div className="desk-board" style={{ ['--desk-sets' as string]: keys.length }}>
      <div className="desk-tabs" role="tablist" aria-label={t('desk.sets')}>
        {keys.map((k, i) => (
          <button
            key={k}
            type="button"
            role="tab"
            aria-selected={i === active}
            data-testid={`set-tab-${k}`}
            className={i === active ? 'desk-tab desk-tab-active' : 'desk-tab'}
            onClick={() => show(i)}
          >
            {k === 'none' ? t('candidate.noSet') : t('desk.setTab', { set: k })}
          </button>
        ))}
      </div>
      <div
        className="desk-sets"
        ref={strip}
        data-testid="desk-sets"
        onScroll={() => {
          // Read once the strip has settled (a snap, a resize), not mid-way.
          clearTimeout(settle.current);
          settle.current = setTimeout(() => {
            const el = strip.current;
            if (!el || el.scrollWidth <= el.clientWidth) return;
            // The set whose start is nearest the strip's scroll position.
            const starts = [...el.children].map((c) => Math.abs((c as HTMLElement).offsetLeft - el.offsetLeft - el.scrollLeft));
            setActive(starts.indexOf(Math.min(...starts)));
          }, 100);
        }}
      >
        {keys.map((k) => (
          <SetSection key={k} k={k} texts={textSets.get(k) ?? []} images={imageSets.get(k) ?? []} actions={actions} />
        ))}
      </div>
    </div>
  );
}
