import { CheckCircleFilled, CopyOutlined, DownloadOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Descriptions, Image, Input, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { api } from '../../api/endpoints';
import { queryKeys, refresh } from '../../api/queryKeys';
import type { KitImage, PostKit } from '../../api/types';
import { PageSpin } from '../../app/guards';
import { notifySuccess } from '../../app/notify';
import { copyText } from '../../components/clipboard';
import { formatTime } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { QueryError } from '../../components/QueryError';
import { isNoteUrl, PostStatusTag } from './postStatus';
import { PostMetricsCard } from './PostMetrics';

/** The body as it is pasted under a note: the text, a blank line, the `#tag` line. */
export function kitBodyText(kit: Pick<PostKit, 'body' | 'hashtag_line'>): string {
  return kit.hashtag_line ? `${kit.body}\n\n${kit.hashtag_line}` : kit.body;
}

/** A copy button that says 已复制 next to itself (and in a toast), or why it could not copy. */
function CopyLine({ text, label, testId }: { text: string; label: string; testId: string }) {
  const { t } = useTranslation();
  const [state, setState] = useState<'idle' | 'done' | 'failed'>('idle');
  const copy = () =>
    copyText(text).then(
      () => {
        setState('done');
        notifySuccess(t('publishing.kit.copied'));
      },
      () => setState('failed'),
    );
  return (
    <Space wrap size={8}>
      <Button icon={<CopyOutlined aria-hidden />} onClick={() => void copy()} data-testid={testId}>
        {label}
      </Button>
      <span role="status" aria-live="polite">
        {state === 'done' && <Typography.Text type="success">{t('publishing.kit.copied')}</Typography.Text>}
        {state === 'failed' && <Typography.Text type="danger">{t('publishing.kit.copyFailed')}</Typography.Text>}
      </span>
    </Space>
  );
}

/** Saves every image through its own `<a download>`, one after another (browsers drop bursts of downloads). */
function saveAll(images: readonly KitImage[]) {
  images.forEach((image, i) => {
    setTimeout(() => {
      const link = document.createElement('a');
      link.href = image.url;
      link.download = image.file_name;
      document.body.appendChild(link);
      link.click();
      link.remove();
    }, i * 400);
  });
}

function MarkPublished({ kit }: { kit: PostKit }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState('');
  const [invalid, setInvalid] = useState(false);
  const mark = useMutation({
    meta: { inlineError: true },
    mutationFn: (noteUrl: string) => api.posts.markPublished(kit.post_id, noteUrl),
    onSuccess: (post) => {
      notifySuccess(t('publishing.kit.publishedDone'));
      queryClient.setQueryData<PostKit>(queryKeys.posts.kit(kit.post_id), (old) => old && { ...old, status: post.status, note_url: post.note_url });
      void refresh.posts(queryClient);
    },
  });
  const submit = () => {
    const value = url.trim();
    if (!isNoteUrl(value)) {
      setInvalid(true);
      return;
    }
    setInvalid(false);
    mark.mutate(value);
  };
  return (
    <Card size="small" title={t('publishing.kit.mark')} style={{ marginBottom: 16 }}>
      <Space.Compact style={{ width: '100%' }}>
        <Input
          aria-label={t('publishing.kit.noteUrl')}
          placeholder={t('publishing.kit.noteUrlPlaceholder')}
          value={url}
          status={invalid ? 'error' : undefined}
          inputMode="url"
          autoComplete="off"
          onChange={(e) => {
            setUrl(e.target.value);
            setInvalid(false);
          }}
          onPressEnter={submit}
        />
        <Button type="primary" loading={mark.isPending} onClick={submit}>
          {t('publishing.kit.mark')}
        </Button>
      </Space.Compact>
      {invalid && (
        <Typography.Text type="danger" role="alert" data-testid="note-url-error">
          {t('publishing.kit.badUrl')}
        </Typography.Text>
      )}
      {mark.error && <Alert type="error" showIcon role="alert" title={errorMessage(mark.error)} style={{ marginTop: 8 }} />}
    </Card>
  );
}

/**
 * 发布包 (`/posts/:id/kit`): what a person needs on a phone to post the note in a minute — the
 * title and the body with its tags ready to copy, the images in posting order to save, the
 * AI-content declaration to tick — and then the note's link to mark it published.
 */
export default function KitPage() {
  const { t } = useTranslation();
  const id = Number(useParams().id);
  const kit = useQuery({ queryKey: queryKeys.posts.kit(id), queryFn: () => api.posts.kit(id) });
  if (kit.isLoading) return <PageSpin />;
  if (!kit.data) return <QueryError error={kit.error} />;
  const k = kit.data;
  const published = k.status === 'published';
  return (
    <div style={{ maxWidth: 720, margin: '0 auto' }}>
      <PageTitle tab={t('publishing.kit.tab', { id: k.post_id })} style={{ marginBottom: 8 }}>
        {t('publishing.kit.title')} <PostStatusTag status={k.status} />
      </PageTitle>
      <Descriptions size="small" column={1} style={{ marginBottom: 12 }}>
        <Descriptions.Item label={t('publishing.kit.account')}>{k.account.name}</Descriptions.Item>
        <Descriptions.Item label={t('publishing.kit.planned')}>{formatTime(k.scheduled_at)}</Descriptions.Item>
      </Descriptions>

      {published && (
        <Alert
          type="success"
          showIcon
          icon={<CheckCircleFilled aria-hidden />}
          data-testid="kit-published"
          style={{ marginBottom: 16 }}
          title={t('publishing.kit.published')}
          description={
            k.note_url ? (
              // The theme's red on the success green reads poorly (axe color-contrast): the text colour, underlined.
              <a href={k.note_url} target="_blank" rel="noreferrer" style={{ wordBreak: 'break-all', color: 'rgba(0,0,0,0.88)', textDecoration: 'underline' }}>
                {k.note_url}
              </a>
            ) : undefined
          }
        />
      )}
      {k.status === 'cancelled' && <Alert type="info" showIcon style={{ marginBottom: 16 }} title={t('publishing.kit.cancelledHint')} />}

      <Card size="small" title={t('publishing.post.title')} style={{ marginBottom: 16 }}>
        <Typography.Paragraph strong data-testid="kit-title" style={{ fontSize: 16 }}>
          {k.title}
        </Typography.Paragraph>
        <CopyLine text={k.title} label={t('publishing.kit.copyTitle')} testId="copy-title" />
      </Card>

      <Card size="small" title={t('publishing.kit.body')} style={{ marginBottom: 16 }}>
        <Typography.Paragraph data-testid="kit-body" style={{ whiteSpace: 'pre-wrap' }}>
          {k.body}
        </Typography.Paragraph>
        {k.hashtag_line && (
          <Typography.Paragraph data-testid="kit-tags" style={{ color: '#0958d9' }}>
            {k.hashtag_line}
          </Typography.Paragraph>
        )}
        <CopyLine text={kitBodyText(k)} label={t('publishing.kit.copyBody')} testId="copy-body" />
      </Card>

      <Card
        size="small"
        title={t('publishing.kit.images')}
        style={{ marginBottom: 16 }}
        extra={
          k.images.length > 0 && (
            <Button size="small" icon={<DownloadOutlined aria-hidden />} onClick={() => saveAll(k.images)}>
              {t('publishing.kit.saveAll')}
            </Button>
          )
        }
      >
        <Image.PreviewGroup>
          <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(140px, 1fr))', gap: 12 }}>
            {k.images.map((image, i) => (
              <div key={image.seq} data-testid="kit-image">
                <Image src={image.url} alt={t('publishing.kit.imageAlt', { seq: image.seq })} style={{ aspectRatio: '3 / 4', objectFit: 'cover' }} width="100%" />
                <Space size={4} style={{ marginTop: 4 }}>
                  <span>{image.seq}</span>
                  {i === 0 && <Tag color="#0958d9">{t('publishing.kit.cover')}</Tag>}
                  <a href={image.url} download={image.file_name}>
                    {t('publishing.kit.save')}
                  </a>
                </Space>
              </div>
            ))}
          </div>
        </Image.PreviewGroup>
      </Card>

      <Card size="small" title={t('publishing.kit.declaration')} style={{ marginBottom: 16 }} data-testid="kit-declaration">
        <Typography.Paragraph strong>{k.declaration.label}</Typography.Paragraph>
        <ol style={{ paddingInlineStart: 20, margin: 0 }}>
          {k.declaration.steps.map((step, i) => (
            <li key={i}>{step}</li>
          ))}
        </ol>
      </Card>

      {(k.status === 'scheduled' || k.status === 'due' || k.status === 'missed') && <MarkPublished kit={k} />}
      {published && <KitResults postId={k.post_id} />}
    </div>
  );
}

/** A published post's latest results and the form to record new ones (the kit itself carries no counts). */
function KitResults({ postId }: { postId: number }) {
  const post = useQuery({ queryKey: queryKeys.posts.detail(postId), queryFn: () => api.posts.get(postId) });
  if (post.error) return <QueryError error={post.error} />;
  if (!post.data) return null;
  return <PostMetricsCard postId={postId} latest={post.data.latest_metrics} />;
}
