import { Image } from 'antd';
import { DemoMark } from './demo';

/**
 * A 3:4 thumbnail; a click opens the lightbox (antd Image preview, inside a PreviewGroup when
 * given). `demo`: the offline demo provider drew it, and the thumbnail says so.
 */
export function Thumb({ url, alt, width = 120, demo = false }: { url: string; alt: string; width?: number | string; demo?: boolean }) {
  return (
    <div style={{ position: 'relative', width, aspectRatio: '3 / 4', overflow: 'hidden', borderRadius: 6, background: '#f0f0f0' }}>
      {demo && <DemoMark />}
      <Image src={url} alt={alt} width="100%" height="100%" style={{ objectFit: 'cover' }} />
    </div>
  );
}
