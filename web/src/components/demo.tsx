import { Alert, Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { TaskDetail } from '../api/types';
import { tone } from './tags';

/** The built-in offline provider (DEMO_DATA's connection): its output is a stand-in, never for publishing. */
const DEMO_PROVIDER = 'local';

/** Which of a task's AI output the offline demo provider made (issue 14 item 7). */
export interface DemoOrigin {
  text: boolean;
  image: boolean;
}

export const NOT_DEMO: DemoOrigin = { text: false, image: false };

/**
 * From the connections the task's latest generation used. A team's own upload or import is never
 * demo output; the caller checks `source` for that.
 */
export function demoOrigin(providers: TaskDetail['providers'] | undefined): DemoOrigin {
  return { text: providers?.text?.provider === DEMO_PROVIDER, image: providers?.image?.provider === DEMO_PROVIDER };
}

/** A tag beside a text or a note: demo output, with why on hover. */
export function DemoTag() {
  const { t } = useTranslation();
  return (
    <Tooltip title={t('demo.why')}>
      <Tag color={tone('gold')} data-testid="demo-tag" tabIndex={0}>
        {t('demo.tag')}
      </Tag>
    </Tooltip>
  );
}

/** Laid over an image's bottom-left corner (clear of the lettered cover title) (its parent is positioned): the picture itself says it is a stand-in. */
export function DemoMark() {
  const { t } = useTranslation();
  return (
    <span
      data-testid="demo-mark"
      title={t('demo.why')}
      style={{ position: 'absolute', left: 6, bottom: 6, zIndex: 1, background: tone('gold'), color: '#fff', borderRadius: 4, padding: '0 6px', fontSize: 12, lineHeight: '20px', pointerEvents: 'none' }}
    >
      {t('demo.mark')}
    </span>
  );
}

/** The page's warning: what was made by the demo provider, and where real output comes from. */
export function DemoNotice({ origin, fission = false }: { origin: DemoOrigin; fission?: boolean }) {
  const { t } = useTranslation();
  if (!origin.text && !origin.image) return null;
  const what = t(origin.text && origin.image ? 'demo.both' : origin.text ? 'demo.text' : 'demo.image');
  return (
    <Alert
      type="warning"
      showIcon
      data-testid="demo-notice"
      style={{ marginBottom: 16 }}
      title={fission ? t('demo.fissionTitle') : t('demo.title', { what })}
      description={
        <>
          {/* Underlined: a link inside a sentence is told apart by more than its colour. */}
          {t('demo.body')}{' '}
          <Link to="/api-keys" style={{ textDecoration: 'underline' }}>
            {t('demo.connections')}
          </Link>
        </>
      }
    />
  );
}
