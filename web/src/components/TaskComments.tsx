import { CloseOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Empty, Input, List, Popconfirm, Segmented, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../api/client';
import { api } from '../api/endpoints';
import type { CommentAnchor, TaskComment } from '../api/types';
import { useMe } from '../app/session';
import { formatTime } from './format';

/** The comments of a task, shared by every view of them (review desk, task page). */
export const commentsKey = (taskId: number) => ['task', taskId, 'comments'] as const;

export function useTaskComments(taskId: number) {
  return useQuery({ queryKey: commentsKey(taskId), queryFn: () => api.comments.list(taskId), refetchInterval: 30_000 });
}

type Filter = 'open' | 'resolved';

export interface TaskCommentsProps {
  taskId: number;
  /** Where the next comment goes (a line of a text, an image); the task when absent. */
  target?: CommentAnchor;
  /** How the target reads ("A 组正文第 3 行"). */
  targetLabel?: string;
  onClearTarget?: () => void;
  /** How an existing comment's anchor reads; the anchor's kind by default. */
  describe?: (anchor: CommentAnchor) => string;
  /** Whether the viewer may write (comment, resolve); the list shows either way. */
  canWrite?: boolean;
}

/**
 * A task's review comments, open and resolved, with a box to add one on the task or on the
 * target the page picked (a clicked line, an image), and resolve / reopen / withdraw per comment.
 */
export function TaskComments({ taskId, target, targetLabel, onClearTarget, describe, canWrite = true }: TaskCommentsProps) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const me = useMe();
  const comments = useTaskComments(taskId);
  const [filter, setFilter] = useState<Filter>('open');
  const [body, setBody] = useState('');
  const [emptyError, setEmptyError] = useState(false);
  const reload = () => queryClient.invalidateQueries({ queryKey: commentsKey(taskId) });
  const add = useMutation({
    meta: { inlineError: true },
    mutationFn: () => api.comments.add(taskId, target && target.kind !== 'task' ? { body: body.trim(), anchor: target } : { body: body.trim() }),
    onSuccess: () => {
      setBody('');
      setFilter('open');
      onClearTarget?.();
      void reload();
    },
  });
  const resolve = useMutation({
    mutationFn: (v: { id: number; resolved: boolean }) => api.comments.resolve(taskId, v.id, v.resolved),
    onSettled: reload,
  });
  const remove = useMutation({ mutationFn: (id: number) => api.comments.remove(taskId, id), onSettled: reload });

  const items = comments.data?.items ?? [];
  const open = items.filter((c) => !c.resolved);
  const resolved = items.filter((c) => c.resolved);
  const shown = filter === 'open' ? open : resolved;
  const anchorText = (a: CommentAnchor) =>
    describe?.(a) ?? (a.kind === 'text' ? t('review2.comments.onLine', { line: a.line }) : a.kind === 'image' ? t('review2.comments.onImage') : t('review2.comments.onTask'));
  const mayRemove = (c: TaskComment) => me.data?.id === c.author_id || me.data?.role === 'supervisor' || me.data?.role === 'admin';

  const submit = () => {
    if (!body.trim()) {
      setEmptyError(true);
      return;
    }
    add.mutate();
  };

  return (
    <div data-testid="task-comments">
      <Space wrap style={{ marginBottom: 8 }}>
        <Segmented<Filter>
          value={filter}
          onChange={setFilter}
          options={[
            { value: 'open', label: t('review2.comments.open', { count: open.length }) },
            { value: 'resolved', label: t('review2.comments.resolved', { count: resolved.length }) },
          ]}
        />
      </Space>
      {comments.error && <Alert type="error" showIcon title={errorMessage(comments.error)} />}
      {shown.length === 0 && !comments.isLoading ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={filter === 'open' ? t('review2.comments.noneOpen') : t('review2.comments.noneResolved')} />
      ) : (
        <List<TaskComment>
          size="small"
          dataSource={shown}
          loading={comments.isLoading}
          renderItem={(c) => (
            <List.Item data-testid="comment" data-resolved={String(c.resolved)} style={{ display: 'block', paddingInline: 0 }}>
              <Space wrap size={4}>
                <Typography.Text strong>{c.author_name}</Typography.Text>
                <Tag>{anchorText(c.anchor)}</Tag>
                <Typography.Text type="secondary">{formatTime(c.created_at)}</Typography.Text>
              </Space>
              {c.quote && (
                <Typography.Paragraph type="secondary" style={{ margin: '4px 0 0', paddingLeft: 8, borderLeft: '3px solid #d9d9d9', whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                  {c.quote}
                </Typography.Paragraph>
              )}
              <Typography.Paragraph style={{ margin: '4px 0 0', whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{c.body}</Typography.Paragraph>
              {canWrite && (
                <Space size={4} style={{ marginTop: 4 }}>
                  <Button size="small" onClick={() => resolve.mutate({ id: c.id, resolved: !c.resolved })} loading={resolve.isPending && resolve.variables?.id === c.id}>
                    {c.resolved ? t('review2.comments.reopen') : t('review2.comments.resolve')}
                  </Button>
                  {mayRemove(c) && (
                    <Popconfirm title={t('review2.comments.removeConfirm')} okText={t('form.ok')} cancelText={t('form.cancel')} onConfirm={() => remove.mutate(c.id)}>
                      <Button size="small" type="text" danger>
                        {t('review2.comments.remove')}
                      </Button>
                    </Popconfirm>
                  )}
                </Space>
              )}
            </List.Item>
          )}
        />
      )}
      {canWrite && (
        <div style={{ marginTop: 8 }}>
          <Space size={4} wrap style={{ marginBottom: 4 }}>
            <Typography.Text type="secondary">{t('review2.comments.target')}</Typography.Text>
            <Tag data-testid="comment-target" closable={Boolean(target && target.kind !== 'task')} closeIcon={<CloseOutlined aria-label={t('review2.comments.clearTarget')} />} onClose={() => onClearTarget?.()}>
              {target && target.kind !== 'task' ? (targetLabel ?? anchorText(target)) : t('review2.comments.onTask')}
            </Tag>
          </Space>
          {add.error && <Alert type="error" showIcon role="alert" title={errorMessage(add.error)} style={{ marginBottom: 8 }} />}
          <Input.TextArea
            aria-label={t('review2.comments.body')}
            placeholder={t('review2.comments.placeholder')}
            value={body}
            status={emptyError ? 'error' : undefined}
            onChange={(e) => {
              setBody(e.target.value);
              setEmptyError(false);
            }}
            autoSize={{ minRows: 2, maxRows: 6 }}
            maxLength={500}
            showCount
            data-testid="comment-body"
          />
          {emptyError && (
            <Typography.Text type="danger" role="alert">
              {t('review2.comments.empty')}
            </Typography.Text>
          )}
          <div style={{ marginTop: 8 }}>
            <Button type="primary" onClick={submit} loading={add.isPending} data-testid="comment-send">
              {t('review2.comments.send')}
            </Button>
          </div>
        </div>
      )}
    </div>
  );
}
