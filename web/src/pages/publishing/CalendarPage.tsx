import { LeftOutlined, RightOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, DatePicker, Descriptions, Drawer, Empty, Form, Grid, Popconfirm, Segmented, Select, Space, Spin, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { Fragment, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import { queryKeys, refresh } from '../../api/queryKeys';
import type { Post } from '../../api/types';
import { useCan } from '../../app/abilities';
import { notifySuccess } from '../../app/notify';
import { formatTime } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { QueryError } from '../../components/QueryError';
import { tone } from '../../components/tags';
import i18n from '../../i18n';
import { POST_STATUS_COLOR, PostStatusTag } from './postStatus';
import { PostMetricsCard } from './PostMetrics';

const PAGE_SIZE = 100;
/** More than this many posts in one week is not a calendar any more: the first pages are shown and the rest said. */
const MAX_PAGES = 5;

/** Monday 00:00 (local) of the week holding `day`. */
export function weekStartOf(day: Dayjs): Dayjs {
  const start = day.startOf('day');
  return start.subtract((start.day() + 6) % 7, 'day');
}

const dayLabel = (day: Dayjs) => day.toDate().toLocaleDateString(i18n.language, { weekday: 'short', month: 'numeric', day: 'numeric' });
const timeLabel = (iso: string) => new Date(iso).toLocaleTimeString(i18n.language, { hour: '2-digit', minute: '2-digit' });

/** The Mondays-to-Sundays grid around a month: from the Monday on or before its first day to the Sunday on or after its last. */
export function monthGrid(month: Dayjs): Dayjs[] {
  const first = weekStartOf(month.startOf('month'));
  const last = month.endOf('month').startOf('day');
  const days: Dayjs[] = [];
  for (let day = first; days.length < 42 && (day.isBefore(last) || day.isSame(last, 'day') || days.length % 7 !== 0); day = day.add(1, 'day')) days.push(day);
  return days;
}

/** Every post from `from` to `to` (the server answers 100 a page), earliest first. */
async function rangePosts(from: Dayjs, to: Dayjs, accountId: number | undefined): Promise<{ items: Post[]; total: number }> {
  const query = { from: from.toISOString(), to: to.toISOString(), ...(accountId ? { account_id: accountId } : {}), page_size: PAGE_SIZE };
  const first = await api.posts.list({ ...query, page: 1 });
  const pages = Math.min(Math.ceil(first.total / PAGE_SIZE), MAX_PAGES);
  const rest = await Promise.all(Array.from({ length: Math.max(pages - 1, 0) }, (_, i) => api.posts.list({ ...query, page: i + 2 })));
  return { items: [first, ...rest].flatMap((p) => p.items), total: first.total };
}

const DRAG_TYPE = 'application/x-cps-post';

/** A post can move while it waits (scheduled or due); other states are history. */
const movable = (post: Post) => post.status === 'scheduled' || post.status === 'due';

/** Posts that hold their place on an account's calendar, as the server counts them. */
const holdsPlace = (post: Post) => post.status === 'scheduled' || post.status === 'due' || post.status === 'published';

/** The calendar day of an instant in the account's time zone (its daily cap counts that day). */
const dayIn = (at: Date, timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);

export interface MoveConflict {
  kind: 'daily_cap' | 'too_close';
  other: Post;
}

/**
 * What the server would refuse for `post` moved to `at` on `account` (its own unless dropped on
 * another's row; contract-decisions §11), from the posts the calendar shows: another post of that
 * account closer than its minimum gap, or its daily cap full on its own day. Shown while
 * dragging, before the drop.
 */
export function moveConflict(
  post: Post,
  at: Date,
  shown: readonly Post[],
  account: { id: number; daily_cap: number; min_gap_minutes: number; timezone: string } | undefined,
): MoveConflict | undefined {
  if (!account) return undefined;
  const others = shown.filter((p) => p.id !== post.id && p.account_id === account.id && holdsPlace(p));
  const close = others.find((p) => Math.abs(new Date(p.scheduled_at).getTime() - at.getTime()) < account.min_gap_minutes * 60_000);
  if (close) return { kind: 'too_close', other: close };
  const day = dayIn(at, account.timezone);
  const sameDay = others.filter((p) => dayIn(new Date(p.scheduled_at), account.timezone) === day);
  return sameDay.length >= account.daily_cap ? { kind: 'daily_cap', other: sameDay[0]! } : undefined;
}

function PostCard({ post, onOpen, draggable = false, onDragStart, onDragEnd }: { post: Post; onOpen: () => void; draggable?: boolean; onDragStart?: () => void; onDragEnd?: () => void }) {
  const color = tone(POST_STATUS_COLOR[post.status]) ?? '#8c8c8c';
  return (
    <button
      type="button"
      onClick={onOpen}
      draggable={draggable}
      onDragStart={
        draggable
          ? (e) => {
              e.dataTransfer.setData(DRAG_TYPE, String(post.id));
              onDragStart?.();
            }
          : undefined
      }
      onDragEnd={draggable ? onDragEnd : undefined}
      data-testid="calendar-post"
      style={{
        display: 'block',
        width: '100%',
        textAlign: 'start',
        background: '#fff',
        border: '1px solid rgba(5,5,5,0.1)',
        borderInlineStart: `4px solid ${color}`,
        borderRadius: 6,
        padding: '6px 8px',
        marginBottom: 8,
        cursor: draggable ? 'grab' : 'pointer',
        opacity: post.status === 'cancelled' ? 0.6 : 1,
      }}
    >
      <Space size={4} wrap style={{ fontSize: 12 }}>
        <strong>{timeLabel(post.scheduled_at)}</strong>
        <span>{post.account_name}</span>
      </Space>
      <div style={{ fontSize: 13, margin: '2px 0 4px', overflowWrap: 'anywhere', textDecoration: post.status === 'cancelled' ? 'line-through' : undefined }}>
        {post.title}
      </div>
      <PostStatusTag status={post.status} />
    </button>
  );
}

/** A month on a desk: each day a cell listing its posts one line each (time and title), the rest counted. */
function MonthGrid({ month, posts, onOpen }: { month: Dayjs; posts: Post[]; onOpen: (id: number) => void }) {
  const { t } = useTranslation();
  const today = dayjs();
  const days = monthGrid(month);
  const weekdays = days.slice(0, 7).map((d) => d.toDate().toLocaleDateString(i18n.language, { weekday: 'short' }));
  const SHOWN = 4;
  return (
    <div data-testid="calendar-month-grid">
      <div style={{ display: 'grid', gridTemplateColumns: 'repeat(7, minmax(0, 1fr))', gap: 4, marginBottom: 4 }} aria-hidden>
        {weekdays.map((w) => (
          <div key={w} style={{ textAlign: 'center', fontSize: 12, color: 'rgba(0,0,0,0.65)' }}>
            {w}
          </div>
        ))}
      </div>
      <div style={{ display: 'grid', gridTemplateColumns: 'repeat(7, minmax(0, 1fr))', gap: 4 }}>
        {days.map((day) => {
          const list = posts.filter((p) => dayjs(p.scheduled_at).isSame(day, 'day')).sort((a, b) => a.scheduled_at.localeCompare(b.scheduled_at));
          const inMonth = day.isSame(month, 'month');
          return (
            <section
              key={day.valueOf()}
              aria-label={dayLabel(day)}
              data-testid="calendar-month-day"
              style={{
                background: day.isSame(today, 'day') ? '#e6f4ff' : inMonth ? '#fafafa' : '#fff',
                border: '1px solid rgba(5,5,5,0.06)',
                borderRadius: 6,
                padding: 4,
                minHeight: 96,
                opacity: inMonth ? 1 : 0.6,
              }}
            >
              <div style={{ fontSize: 12, fontWeight: 600, marginBottom: 2 }}>{day.date()}</div>
              {list.slice(0, SHOWN).map((p) => (
                <button
                  key={p.id}
                  type="button"
                  onClick={() => onOpen(p.id)}
                  data-testid="calendar-month-post"
                  title={`${timeLabel(p.scheduled_at)} ${p.account_name} · ${p.title}`}
                  style={{
                    display: 'block',
                    width: '100%',
                    textAlign: 'start',
                    background: '#fff',
                    border: 'none',
                    borderInlineStart: `3px solid ${tone(POST_STATUS_COLOR[p.status]) ?? '#8c8c8c'}`,
                    borderRadius: 3,
                    padding: '1px 4px',
                    marginBottom: 2,
                    fontSize: 12,
                    cursor: 'pointer',
                    whiteSpace: 'nowrap',
                    overflow: 'hidden',
                    textOverflow: 'ellipsis',
                    textDecoration: p.status === 'cancelled' ? 'line-through' : undefined,
                  }}
                >
                  <strong>{timeLabel(p.scheduled_at)}</strong> {p.title}
                </button>
              ))}
              {list.length > SHOWN && (
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                  {t('publishing.calendar.more', { count: list.length - SHOWN })}
                </Typography.Text>
              )}
            </section>
          );
        })}
      </div>
    </div>
  );
}

/**
 * 发布日历 (`/calendar`): a week of posts (on a desk, a month too). On a desk seven day columns, each post a card with its
 * time, account, title and status; on a phone an agenda grouped by day. A post opens a drawer to
 * move it (time, account), cancel it or open its kit.
 */
export default function CalendarPage() {
  const { t } = useTranslation();
  const phone = !(Grid.useBreakpoint().sm ?? true);
  const [weekStart, setWeekStart] = useState(() => weekStartOf(dayjs()));
  const [month, setMonth] = useState(() => dayjs().startOf('month'));
  const [view, setView] = useState<'week' | 'month' | 'accounts'>('week');
  const monthView = view === 'month' && !phone;
  const [accountId, setAccountId] = useState<number>();
  const [openId, setOpenId] = useState<number>();
  const can = useCan();
  const accounts = useQuery({ queryKey: queryKeys.accounts.list({}), queryFn: () => api.accounts.list({ page: 1, page_size: 100 }) });
  const grid = monthGrid(month);
  const [from, to] = monthView ? [grid[0]!, grid[grid.length - 1]!.add(1, 'day')] : [weekStart, weekStart.add(7, 'day')];
  const posts = useQuery({
    queryKey: queryKeys.posts.list({ from: from.toISOString(), to: to.toISOString(), accountId }),
    queryFn: () => rangePosts(from, to, accountId),
  });
  const days = Array.from({ length: 7 }, (_, i) => weekStart.add(i, 'day'));
  const byDay = days.map((day) => ({
    day,
    posts: (posts.data?.items ?? []).filter((p) => dayjs(p.scheduled_at).isSame(day, 'day')).sort((a, b) => a.scheduled_at.localeCompare(b.scheduled_at)),
  }));
  const today = dayjs();
  const open = posts.data?.items.find((p) => p.id === openId);
  const canMove = can('posts.write');
  const queryClient = useQueryClient();
  const [dropDay, setDropDay] = useState<number>();
  // The card being dragged (dragover events cannot read the dragged data) and what its drop would break.
  const [dragged, setDragged] = useState<Post>();
  const movedAt = (post: Post, day: Dayjs) => {
    const at = dayjs(post.scheduled_at);
    return day.hour(at.hour()).minute(at.minute()).second(0).millisecond(0);
  };
  const conflictOn = (day: Dayjs, accountId = dragged?.account_id) =>
    dragged && (!dayjs(dragged.scheduled_at).isSame(day, 'day') || accountId !== dragged.account_id)
      ? moveConflict(dragged, movedAt(dragged, day).toDate(), posts.data?.items ?? [], accounts.data?.items.find((a) => a.id === accountId))
      : undefined;
  // Desk only: a card dropped on another day keeps its time of day; a refusal (cap, gap) is toasted in words.
  const moveTo = useMutation({
    mutationFn: (v: { post: Post; day: Dayjs; accountId?: number }) =>
      api.posts.update(v.post.id, { scheduled_at: movedAt(v.post, v.day).toISOString(), ...(v.accountId && v.accountId !== v.post.account_id ? { account_id: v.accountId } : {}) }),
    onSuccess: () => {
      notifySuccess(t('publishing.post.moved'));
      void refresh.posts(queryClient);
    },
  });
  // 周 / 月 (desk only): the month shown is the one of the week shown, and back to this week's month.
  const viewToggle = (
    <Segmented
      aria-label={t('publishing.calendar.view')}
      value={view}
      onChange={(v) => {
        if (v === 'month') setMonth(weekStart.startOf('month'));
        setView(v as 'week' | 'month' | 'accounts');
      }}
      options={[
        { value: 'week', label: t('publishing.calendar.week') },
        { value: 'accounts', label: t('publishing.calendar.byAccount') },
        { value: 'month', label: t('publishing.calendar.month') },
      ]}
    />
  );
  const drop = (day: Dayjs, accountId?: number) => (e: React.DragEvent) => {
    e.preventDefault();
    setDropDay(undefined);
    setDropCell(undefined);
    setDragged(undefined);
    const id = Number(e.dataTransfer.getData(DRAG_TYPE));
    const post = posts.data?.items.find((p) => p.id === id);
    const otherAccount = accountId !== undefined && accountId !== post?.account_id;
    if (post && (otherAccount || !dayjs(post.scheduled_at).isSame(day, 'day'))) moveTo.mutate({ post, day, accountId });
  };
  // The account rows' drop target: `<account id>:<day>`.
  const [dropCell, setDropCell] = useState<string>();
  const accountRows = (accounts.data?.items ?? []).filter((a) => (accountId ? a.id === accountId : a.active || byDay.some((d) => d.posts.some((p) => p.account_id === a.id))));

  return (
    <>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <PageTitle>{t('publishing.calendar.title')}</PageTitle>
        <Select
          aria-label={t('publishing.calendar.accountFilter')}
          allowClear
          placeholder={t('publishing.calendar.allAccounts')}
          style={{ minWidth: 180 }}
          value={accountId}
          onChange={(v: number | undefined) => setAccountId(v)}
          options={(accounts.data?.items ?? []).map((a) => ({ value: a.id, label: a.name }))}
        />
      </Space>
      {monthView ? (
        <Space wrap style={{ marginBottom: 16 }}>
          {viewToggle}
          <Button icon={<LeftOutlined aria-hidden />} aria-label={t('publishing.calendar.prevMonth')} onClick={() => setMonth((m) => m.subtract(1, 'month'))} />
          <Button onClick={() => setMonth(dayjs().startOf('month'))}>{t('publishing.calendar.thisMonth')}</Button>
          <Button icon={<RightOutlined aria-hidden />} aria-label={t('publishing.calendar.nextMonth')} onClick={() => setMonth((m) => m.add(1, 'month'))} />
          <Typography.Text strong data-testid="calendar-month">
            {month.toDate().toLocaleDateString(i18n.language, { year: 'numeric', month: 'long' })}
          </Typography.Text>
          {posts.isFetching && <Spin size="small" />}
        </Space>
      ) : (
        <Space wrap style={{ marginBottom: 16 }}>
          {!phone && viewToggle}
          <Button icon={<LeftOutlined aria-hidden />} aria-label={t('publishing.calendar.prevWeek')} onClick={() => setWeekStart((w) => w.subtract(7, 'day'))} />
          <Button onClick={() => setWeekStart(weekStartOf(dayjs()))}>{t('publishing.calendar.thisWeek')}</Button>
          <Button icon={<RightOutlined aria-hidden />} aria-label={t('publishing.calendar.nextWeek')} onClick={() => setWeekStart((w) => w.add(7, 'day'))} />
          <Typography.Text strong data-testid="calendar-week">
            {`${dayLabel(days[0]!)} – ${dayLabel(days[6]!)}`}
          </Typography.Text>
          {posts.isFetching && <Spin size="small" />}
        </Space>
      )}
      <QueryError error={posts.error} />
      {posts.data && posts.data.total > posts.data.items.length && (
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 12 }}
          title={t(monthView ? 'publishing.calendar.truncatedMonth' : 'publishing.calendar.truncated', { shown: posts.data.items.length })}
        />
      )}
      {monthView ? (
        <MonthGrid month={month} posts={posts.data?.items ?? []} onOpen={setOpenId} />
      ) : view === 'accounts' && !phone ? (
        <div style={{ display: 'grid', gridTemplateColumns: '120px repeat(7, minmax(0, 1fr))', gap: 6 }} data-testid="calendar-account-grid">
          <span />
          {days.map((day) => (
            <Typography.Text key={day.valueOf()} strong style={{ fontSize: 13, textAlign: 'center' }}>
              {dayLabel(day)}
            </Typography.Text>
          ))}
          {accountRows.map((account) => (
            <Fragment key={account.id}>
              <Typography.Text strong style={{ fontSize: 13, overflowWrap: 'anywhere', paddingTop: 8 }}>
                {account.name}
              </Typography.Text>
              {byDay.map(({ day, posts: list }) => {
                const cell = `${account.id}:${day.valueOf()}`;
                const conflict = dropCell === cell ? conflictOn(day, account.id) : undefined;
                return (
                  <section
                    key={cell}
                    aria-label={`${account.name} ${dayLabel(day)}`}
                    data-testid="calendar-account-cell"
                    onDragOver={
                      canMove
                        ? (e) => {
                            if (!e.dataTransfer.types.includes(DRAG_TYPE)) return;
                            setDropCell(cell);
                            if (!conflictOn(day, account.id)) e.preventDefault();
                          }
                        : undefined
                    }
                    onDragLeave={() => setDropCell(undefined)}
                    onDrop={canMove ? drop(day, account.id) : undefined}
                    style={{
                      background: day.isSame(today, 'day') ? '#e6f4ff' : '#fafafa',
                      outline: dropCell === cell ? (conflict ? '2px dashed #cf1322' : '2px dashed #0958d9') : undefined,
                      borderRadius: 6,
                      padding: 6,
                      minHeight: 72,
                    }}
                  >
                    {conflict && (
                      <Typography.Text type="danger" role="status" style={{ fontSize: 12, display: 'block', marginBottom: 4 }} data-testid="drop-conflict">
                        {t(`publishing.calendar.conflict.${conflict.kind}`, { title: conflict.other.title, id: conflict.other.id })}
                      </Typography.Text>
                    )}
                    {list
                      .filter((p) => p.account_id === account.id)
                      .map((p) => (
                        <PostCard
                          key={p.id}
                          post={p}
                          onOpen={() => setOpenId(p.id)}
                          draggable={canMove && movable(p)}
                          onDragStart={() => setDragged(p)}
                          onDragEnd={() => {
                            setDragged(undefined);
                            setDropCell(undefined);
                          }}
                        />
                      ))}
                  </section>
                );
              })}
            </Fragment>
          ))}
        </div>
      ) : phone ? (
        <>
          {posts.data && posts.data.items.length === 0 && <Empty description={t('publishing.calendar.empty')} />}
          {byDay
            .filter((d) => d.posts.length > 0)
            .map(({ day, posts: list }) => (
              <section key={day.valueOf()} aria-label={dayLabel(day)} style={{ marginBottom: 12 }}>
                <Typography.Title level={2} style={{ fontSize: 15, margin: '0 0 6px' }}>
                  {dayLabel(day)}
                </Typography.Title>
                {list.map((p) => (
                  <PostCard key={p.id} post={p} onOpen={() => setOpenId(p.id)} />
                ))}
              </section>
            ))}
        </>
      ) : (
        <div style={{ display: 'grid', gridTemplateColumns: 'repeat(7, minmax(0, 1fr))', gap: 8 }} data-testid="calendar-week-grid">
          {byDay.map(({ day, posts: list }) => (
            <section
              key={day.valueOf()}
              aria-label={dayLabel(day)}
              onDragOver={
                canMove
                  ? (e) => {
                      if (!e.dataTransfer.types.includes(DRAG_TYPE)) return;
                      setDropDay(day.valueOf());
                      // A drop the account's cap or gap would refuse is not offered.
                      if (!conflictOn(day)) e.preventDefault();
                    }
                  : undefined
              }
              onDragLeave={() => setDropDay(undefined)}
              onDrop={canMove ? drop(day) : undefined}
              data-conflict={dropDay === day.valueOf() && conflictOn(day) ? 'true' : undefined}
              style={{
                background: day.isSame(today, 'day') ? '#e6f4ff' : '#fafafa',
                outline: dropDay === day.valueOf() ? (conflictOn(day) ? '2px dashed #cf1322' : '2px dashed #0958d9') : undefined,
                borderRadius: 8,
                padding: 8,
                minHeight: 240,
              }}
            >
              <Typography.Title level={2} style={{ fontSize: 14, margin: '0 0 8px', textAlign: 'center' }}>
                {dayLabel(day)}
              </Typography.Title>
              {dropDay === day.valueOf() && conflictOn(day) && (
                <Typography.Text type="danger" role="status" style={{ fontSize: 12, display: 'block', marginBottom: 6 }} data-testid="drop-conflict">
                  {t(`publishing.calendar.conflict.${conflictOn(day)!.kind}`, { title: conflictOn(day)!.other.title, id: conflictOn(day)!.other.id })}
                </Typography.Text>
              )}
              {list.map((p) => (
                <PostCard
                  key={p.id}
                  post={p}
                  onOpen={() => setOpenId(p.id)}
                  draggable={canMove && movable(p)}
                  onDragStart={() => setDragged(p)}
                  onDragEnd={() => {
                    setDragged(undefined);
                    setDropDay(undefined);
                  }}
                />
              ))}
              {posts.data && list.length === 0 && (
                <Typography.Text type="secondary" style={{ fontSize: 12, display: 'block', textAlign: 'center' }}>
                  {t('publishing.calendar.noPosts')}
                </Typography.Text>
              )}
            </section>
          ))}
        </div>
      )}
      <PostDrawer post={open} onClose={() => setOpenId(undefined)} />
    </>
  );
}

interface MoveValues {
  scheduled_at: Dayjs;
  account_id: number;
}

/** A post's details and what can be done to it while it waits: move it, cancel it, open its kit. */
function PostDrawer({ post, onClose }: { post: Post | undefined; onClose: () => void }) {
  const { t } = useTranslation();
  const can = useCan();
  const phone = !(Grid.useBreakpoint().sm ?? true);
  const queryClient = useQueryClient();
  const [form] = Form.useForm<MoveValues>();
  const [moving, setMoving] = useState(false);
  const accounts = useQuery({
    queryKey: queryKeys.accounts.list({ active: true }),
    queryFn: () => api.accounts.list({ active: true, page: 1, page_size: 100 }),
    enabled: Boolean(post),
  });
  const close = () => {
    setMoving(false);
    move.reset();
    cancel.reset();
    onClose();
  };
  const move = useMutation({
    meta: { inlineError: true },
    mutationFn: (v: MoveValues) => api.posts.update(post!.id, { scheduled_at: v.scheduled_at.toISOString(), account_id: v.account_id }),
    onSuccess: () => {
      notifySuccess(t('publishing.post.moved'));
      setMoving(false);
      void refresh.posts(queryClient);
    },
  });
  const cancel = useMutation({
    meta: { inlineError: true },
    mutationFn: () => api.posts.cancel(post!.id),
    onSuccess: () => {
      notifySuccess(t('publishing.post.cancelled'));
      void refresh.posts(queryClient);
    },
  });
  const waiting = post && movable(post) && can('posts.write');
  // A missed post can still be cancelled (or published from its kit), no longer moved.
  const cancellable = post && (movable(post) || post.status === 'missed') && can('posts.write');
  const error = move.error ?? cancel.error;
  const source = post?.source;
  const accountOptions = [
    ...(accounts.data?.items ?? []).map((a) => ({ value: a.id, label: a.name })),
    ...(post && !accounts.data?.items.some((a) => a.id === post.account_id) ? [{ value: post.account_id, label: post.account_name }] : []),
  ];

  return (
    <Drawer open={Boolean(post)} onClose={close} title={t('publishing.post.details')} size={phone ? '100%' : 420} closable={{ 'aria-label': t('publishing.post.close') }}>
      {post && (
        <>
          <Typography.Title level={2} style={{ fontSize: 16 }}>
            {post.title}
          </Typography.Title>
          <Descriptions size="small" column={1} style={{ marginBottom: 12 }}>
            <Descriptions.Item label={t('publishing.post.status')}>
              <PostStatusTag status={post.status} />
            </Descriptions.Item>
            <Descriptions.Item label={t('publishing.post.account')}>{post.account_name}</Descriptions.Item>
            <Descriptions.Item label={t('publishing.post.time')}>{formatTime(post.scheduled_at)}</Descriptions.Item>
            {source && (
              <Descriptions.Item label={t('publishing.post.source')}>
                {'fission_id' in source ? (
                  <Link to={`/fission/${source.fission_id}`}>{t('publishing.post.sourceFission', { id: source.fission_id, seq: source.seq ?? '—' })}</Link>
                ) : source.task_id ? (
                  <Link to={`/tasks/${source.task_id}`}>{t('publishing.post.sourceTask', { id: source.task_id, strategy: source.strategy ?? '—' })}</Link>
                ) : (
                  '—'
                )}
              </Descriptions.Item>
            )}
            {post.published_at && <Descriptions.Item label={t('publishing.post.publishedAt')}>{formatTime(post.published_at)}</Descriptions.Item>}
            {post.note_url && (
              <Descriptions.Item label={t('publishing.post.noteUrl')}>
                <a href={post.note_url} target="_blank" rel="noreferrer" style={{ wordBreak: 'break-all' }}>
                  {post.note_url}
                </a>
              </Descriptions.Item>
            )}
          </Descriptions>
          {post.warnings.map((w) => (
            <Alert
              key={w.post_id}
              type="warning"
              showIcon
              style={{ marginBottom: 8 }}
              title={t('publishing.post.warning', { post_id: w.post_id, title: w.title, similarity: Math.round(w.similarity * 100) })}
            />
          ))}
          {error && <Alert type="error" showIcon role="alert" title={errorMessage(error)} style={{ marginBottom: 12 }} data-testid="post-error" />}
          <Space wrap style={{ marginBottom: 12 }}>
            <Link to={`/posts/${post.id}/kit`}>
              <Button type="primary">{t('publishing.post.openKit')}</Button>
            </Link>
            {waiting && (
              <Button onClick={() => setMoving((m) => !m)} aria-expanded={moving}>
                {t('publishing.post.reschedule')}
              </Button>
            )}
            {cancellable && (
              <Popconfirm title={t('publishing.post.cancelConfirm')} okText={t('form.ok')} cancelText={t('form.cancel')} onConfirm={() => cancel.mutate()}>
                <Button danger loading={cancel.isPending}>
                  {t('publishing.post.cancel')}
                </Button>
              </Popconfirm>
            )}
          </Space>
          {waiting && moving && (
            <Form<MoveValues>
              key={post.id}
              form={form}
              layout="vertical"
              initialValues={{ scheduled_at: dayjs(post.scheduled_at), account_id: post.account_id }}
              onFinish={(v) => move.mutate(v)}
            >
              <Form.Item label={t('publishing.post.time')} name="scheduled_at" rules={[{ required: true, message: t('form.required') }]}>
                <DatePicker showTime={{ format: 'HH:mm', minuteStep: 5 }} format="YYYY-MM-DD HH:mm" style={{ width: '100%' }} />
              </Form.Item>
              <Form.Item label={t('publishing.post.account')} name="account_id" rules={[{ required: true, message: t('form.required') }]}>
                <Select options={accountOptions} />
              </Form.Item>
              <Button type="primary" htmlType="submit" loading={move.isPending}>
                {t('publishing.post.rescheduleSave')}
              </Button>
            </Form>
          )}
          {post.status === 'published' && can('posts.write') && <PostMetricsCard key={post.id} postId={post.id} latest={post.latest_metrics} />}
        </>
      )}
    </Drawer>
  );
}
