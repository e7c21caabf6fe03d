import { Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DemoMark } from '../../components/demo';
import { tone } from '../../components/tags';

export interface PreviewNote {
  title: string;
  content: string;
  tags: string[];
}

/**
 * The note as it reads in the app on a phone: the images in their swipe order (the cover first,
 * scrolled sideways with a counter), then title, body and tags. What the team publishes is
 * what it sees here before submitting; demo output (`demo`) says so on the picture and under it.
 */
export function PhonePreview({ note, images, label, demo = false }: { note: PreviewNote; images: { url: string; alt: string }[]; label: string; demo?: boolean }) {
  const { t } = useTranslation();
  const [index, setIndex] = useState(0);
  return (
    <figure
      data-testid="phone-preview"
      aria-label={label}
      style={{ boxSizing: 'border-box', margin: 0, width: 320, maxWidth: '100%', border: '10px solid #1f1f1f', borderRadius: 32, overflow: 'hidden', background: '#fff' }}
    >
      <div style={{ position: 'relative', background: '#f5f5f5' }}>
        {demo && <DemoMark />}
        {images.length > 0 ? (
          <div
            data-testid="phone-swipe"
            tabIndex={0}
            aria-label={t('editing.images')}
            onScroll={(e) => setIndex(Math.round(e.currentTarget.scrollLeft / Math.max(e.currentTarget.clientWidth, 1)))}
            style={{ display: 'flex', overflowX: 'auto', scrollSnapType: 'x mandatory', aspectRatio: '3 / 4' }}
          >
            {images.map((img) => (
              <img key={img.url} src={img.url} alt={img.alt} style={{ flex: '0 0 100%', width: '100%', objectFit: 'cover', scrollSnapAlign: 'start' }} />
            ))}
          </div>
        ) : (
          <div style={{ aspectRatio: '3 / 4', display: 'flex', alignItems: 'center', justifyContent: 'center', color: '#595959' }}>{t('editing.noImages')}</div>
        )}
        {images.length > 1 && (
          <span style={{ position: 'absolute', right: 8, top: 8, background: 'rgba(0,0,0,0.6)', color: '#fff', borderRadius: 10, padding: '0 8px', fontSize: 12 }}>
            {t('editing.swipe', { n: index + 1, total: images.length })}
          </span>
        )}
      </div>
      <figcaption style={{ padding: 12, maxHeight: 320, overflow: 'auto' }} tabIndex={0}>
        {demo && (
          <Typography.Text data-testid="preview-demo" style={{ display: 'block', fontSize: 12, marginBottom: 6, color: tone('gold') }}>
            {t('demo.tag')} · {t('demo.why')}
          </Typography.Text>
        )}
        <Typography.Text strong style={{ display: 'block', fontSize: 15, marginBottom: 6 }}>
          {note.title}
        </Typography.Text>
        <Typography.Paragraph style={{ whiteSpace: 'pre-wrap', fontSize: 13, marginBottom: 6 }}>{note.content}</Typography.Paragraph>
        <Typography.Text style={{ color: '#13458c', fontSize: 13 }}>{note.tags.map((tag) => `#${tag}`).join(' ')}</Typography.Text>
      </figcaption>
    </figure>
  );
}
