import { Image } from 'antd';

/** A 3:4 thumbnail; a click opens the lightbox (antd Image preview, inside a PreviewGroup when given). */
export function Thumb({ url, alt, width = 120 }: { url: string; alt: string; width?: number }) {
  return (
    <div style={{ width, aspectRatio: '3 / 4', overflow: 'hidden', borderRadius: 6, background: '#f0f0f0' }}>
      <Image src={url} alt={alt} width="100%" height="100%" style={{ objectFit: 'cover' }} />
    </div>
  );
}
