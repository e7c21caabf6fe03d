import { LeftOutlined, RightOutlined } from '@ant-design/icons';
import { Typography } from 'antd';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DemoMark } from '../../components/demo';
import { tone } from '../../components/tags';

export interface PreviewNote {
  title: string;
  content: string;
  tags: string[];
}

const arrow = {
  position: 'absolute',
  top: '50%',
  transform: 'translateY(-50%)',
  width: 32,
  height: 32,
  borderRadius: 16,
  border: 'none',
  background: 'rgba(0,0,0,0.55)',
  color: '#fff',
  cursor: 'pointer',
  display: 'flex',
  alignItems: 'center',
  justifyContent: 'center',
  zIndex: 2,
} as const;

/**
 * The note as it reads in the app on a phone: the images in their swipe order (the cover first),
 * swiped by touch or trackpad (scroll snap), stepped with the arrows or the dots by mouse, or
 * with the arrow keys; then title, body and tags. What the team publishes is what it sees here
 * before submitting; demo output (`demo`) says so on the picture and under it.
 */
export function PhonePreview({ note, images, label, demo = false }: { note: PreviewNote; images: { url: string; alt: string }[]; label: string; demo?: boolean }) {
  const { t } = useTranslation();
  const [index, setIndex] = useState(0);
  const strip = useRef<HTMLDivElement>(null);
  const go = (next: number) => {
    const target = Math.max(0, Math.min(images.length - 1, next));
    setIndex(target);
    const el = strip.current;
    if (el) el.scrollTo({ left: target * el.clientWidth, behavior: 'smooth' });
  };
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
            ref={strip}
            data-testid="phone-swipe"
            tabIndex={0}
            aria-label={t('editing.images')}
            onKeyDown={(e) => {
              if (e.key === 'ArrowRight') go(index + 1);
              else if (e.key === 'ArrowLeft') go(index - 1);
              else return;
              e.preventDefault();
            }}
            onScroll={(e) => setIndex(Math.round(e.currentTarget.scrollLeft / Math.max(e.currentTarget.clientWidth, 1)))}
            style={{ display: 'flex', overflowX: 'auto', scrollSnapType: 'x mandatory', aspectRatio: '3 / 4', scrollbarWidth: 'none' }}
          >
            {images.map((img) => (
              <img key={img.url} src={img.url} alt={img.alt} draggable={false} style={{ flex: '0 0 100%', width: '100%', objectFit: 'cover', scrollSnapAlign: 'start' }} />
            ))}
          </div>
        ) : (
          <div style={{ aspectRatio: '3 / 4', display: 'flex', alignItems: 'center', justifyContent: 'center', color: '#595959' }}>{t('editing.noImages')}</div>
        )}
        {images.length > 1 && (
          <>
            <span style={{ position: 'absolute', right: 8, top: 8, background: 'rgba(0,0,0,0.6)', color: '#fff', borderRadius: 10, padding: '0 8px', fontSize: 12 }}>
              {t('editing.swipe', { n: index + 1, total: images.length })}
            </span>
            {index > 0 && (
              <button type="button" data-testid="preview-prev" aria-label={t('desk.carousel.prev')} onClick={() => go(index - 1)} style={{ ...arrow, left: 6 }}>
                <LeftOutlined aria-hidden />
              </button>
            )}
            {index < images.length - 1 && (
              <button type="button" data-testid="preview-next" aria-label={t('desk.carousel.next')} onClick={() => go(index + 1)} style={{ ...arrow, right: 6 }}>
                <RightOutlined aria-hidden />
              </button>
            )}
            <div data-testid="preview-dots" style={{ position: 'absolute', left: 0, right: 0, bottom: 6, display: 'flex', justifyContent: 'center', gap: 2 }}>
              {images.map((img, i) => (
                <button
                  key={img.url}
                  type="button"
                  aria-label={t('desk.carousel.dot', { n: i + 1 })}
                  aria-current={i === index}
                  onClick={() => go(i)}
                  style={{ width: 20, height: 20, padding: 0, border: 'none', background: 'transparent', cursor: 'pointer', display: 'flex', alignItems: 'center', justifyContent: 'center' }}
                >
                  <span style={{ width: 8, height: 8, borderRadius: 4, background: i === index ? '#fff' : 'rgba(255,255,255,0.5)', boxShadow: '0 0 2px rgba(0,0,0,0.6)' }} />
                </button>
              ))}
            </div>
          </>
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
