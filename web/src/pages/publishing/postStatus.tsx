import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { PostStatus } from '../../api/types';
import { tone } from '../../components/tags';

export const POST_STATUS_COLOR: Record<PostStatus, string> = {
  scheduled: 'blue',
  due: 'orange',
  published: 'green',
  missed: 'red',
  cancelled: 'default',
};

export function PostStatusTag({ status }: { status: PostStatus }) {
  const { t } = useTranslation();
  return (
    <Tag color={tone(POST_STATUS_COLOR[status])} data-testid="post-status">
      {t(`publishing.status.${status}`)}
    </Tag>
  );
}

/**
 * Whether a link is a Xiaohongshu note link the server will take (§11): http(s) on
 * xiaohongshu.com or xhslink.com (or a subdomain of them). The server checks it again
 * (`post.note_url`); this only spares a round trip and words the problem at once.
 */
export function isNoteUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const host = url.hostname.toLowerCase();
  return ['xiaohongshu.com', 'xhslink.com'].some((domain) => host === domain || host.endsWith(`.${domain}`));
}
