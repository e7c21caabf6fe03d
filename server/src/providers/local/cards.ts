import sharp from 'sharp';
import { clipWords } from '../../content/text.js';
import { labelledXmp, type AigcLabel } from '../../images/aigc.js';
import { escapeXml, FONT_FAMILY, renderSvg, textWidth, wrapText } from '../../images/fonts.js';
import { encode, normalizeImage, type NormalizedImage } from '../../images/normalize.js';
import { MAX_INPUT_PIXELS } from '../../images/probe.js';
import { compositeRows, fromRaw, type RawImage } from '../../images/raw.js';
import type { ImageInput } from '../types.js';
import type { Random } from './random.js';

const W = 1080;
const H = 1440;

/** Base hue per strategy (A warm, B cool, C fresh), varied a little per image. */
const STRATEGY_HUES: Record<string, number> = { A: 350, B: 210, C: 140 };

export interface CardSpec {
  role: string;
  strategy: string;
  seq: number;
  productName: string;
  theme: string;
  reference?: ImageInput;
}

const hsl = (h: number, s: number, l: number) => `hsl(${Math.round(((h % 360) + 360) % 360)},${s}%,${l}%)`;

interface Frame {
  x: number;
  y: number;
  w: number;
  h: number;
  strip: number;
  radius: number;
  /** How close the shot is: the photo (or stand-in) enlarged this much inside the frame. */
  zoom: number;
  /** Saturation of the background, in %: the pain slide is muted, the others bright. */
  saturation: number;
}

const STRIP = 130;

/**
 * Where each role's product frame goes, so a carousel is a sequence of different shots, as the
 * storyboard asks of a real model: a cover leaves the upper 40% to its title, the slides leave
 * the bottom band to their captions; pain is muted and off-centre, proof and quality close in,
 * credit is a held card, convert a calm closing shot.
 */
const FRAMES: Record<string, Frame> = {
  hook: { x: 110, y: 620, w: 860, h: 700, strip: STRIP, radius: 36, zoom: 1, saturation: 65 },
  main: { x: 110, y: 620, w: 860, h: 700, strip: STRIP, radius: 36, zoom: 1, saturation: 65 },
  pain: { x: 70, y: 180, w: 640, h: 760, strip: STRIP, radius: 28, zoom: 1.25, saturation: 22 },
  proof: { x: 60, y: 150, w: 960, h: 960, strip: STRIP, radius: 24, zoom: 1.8, saturation: 55 },
  quality: { x: 200, y: 230, w: 680, h: 820, strip: STRIP, radius: 64, zoom: 2.6, saturation: 45 },
  credit: { x: 300, y: 200, w: 640, h: 860, strip: 170, radius: 18, zoom: 1.3, saturation: 60 },
  convert: { x: 150, y: 330, w: 780, h: 760, strip: STRIP, radius: 48, zoom: 1, saturation: 70 },
};

/**
 * A storyboard card, normalised like any provider image (JPEG, no metadata but the AI label), at width×height:
 * drawn at 1080×1440 and encoded once; another size is resized from that (nothing asks for one
 * today, so it may cost a second encode).
 */
export async function renderCardImage(spec: CardSpec, rng: Random, size: { width: number; height: number; aigc?: AigcLabel }): Promise<NormalizedImage> {
  const card = fromRaw(await renderCard(spec, rng));
  if (size.width === W && size.height === H) return encode(card, { ...size, xmp: size.aigc ? labelledXmp(undefined, size.aigc) : undefined });
  return normalizeImage((await encode(card, { width: W, height: H, format: 'png' })).data, size);
}

/**
 * A 1080×1440 storyboard card: a soft gradient in the strategy's colours, the product photo
 * in a rounded frame (or a neutral product tile), and the product name and theme in Chinese.
 * Its layout follows the role (FRAMES); the upper 40% of a cover and the bottom band of a
 * slide stay calm for the cover title and captions the service overlays afterwards. Returned as pixels, for a single encode by the caller.
 */
async function renderCard(spec: CardSpec, rng: Random): Promise<RawImage> {
  const frame = FRAMES[spec.role] ?? FRAMES.main!;
  const hue = (STRATEGY_HUES[spec.strategy] ?? 30) + rng.int(-18, 18);
  const bubbles = Array.from({ length: 6 }, () => {
    const r = rng.int(60, 220);
    return `<circle cx="${rng.int(0, W)}" cy="${rng.int(0, H)}" r="${r}" fill="${hsl(hue + rng.int(-40, 40), frame.saturation, 92)}" fill-opacity="${(0.35 + rng.next() * 0.4).toFixed(2)}"/>`;
  }).join('');
  const { x, y, w, h, strip, radius, zoom, saturation } = frame;
  const nameLines = wrapText(spec.productName || '好物推荐', w - 80, 46, 1);
  // The theme as the reader would read it, never the image's place in the set ("封面 · 第1张").
  const subtitle = wrapText(spec.theme || '日常分享', w - 80, 30, 1);
  // The name's first words, up to six characters, on a label as wide as they are: never half a word of it.
  const label = clipWords(spec.productName || '好物', 6);
  const labelWidth = Math.max(140, Math.round(textWidth(label, 34)) + 36);
  const standIn = spec.reference
    ? ''
    : `<clipPath id="picture"><rect x="${x + 20}" y="${y + 20}" width="${w - 40}" height="${h - strip - 30}" rx="${radius - 12}"/></clipPath>
       <g clip-path="url(#picture)"><g transform="translate(${x + w / 2} ${y + (h - strip) / 2 + 20}) scale(${zoom})">
         <rect x="-140" y="-140" width="280" height="280" rx="40" fill="${hsl(hue, 45, 62)}"/>
         <rect x="${-labelWidth / 2}" y="-40" width="${labelWidth}" height="90" rx="14" fill="#ffffff" fill-opacity="0.85"/>
         <text y="18" font-family="${FONT_FAMILY}" font-size="34" font-weight="700" fill="${hsl(hue, 40, 35)}" text-anchor="middle">${escapeXml(label)}</text>
       </g></g>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">
    <defs>
      <linearGradient id="bg" x1="0" y1="0" x2="0.4" y2="1">
        <stop offset="0" stop-color="${hsl(hue, saturation, 88)}"/>
        <stop offset="1" stop-color="${hsl(hue + 30, Math.round(saturation * 0.85), 96)}"/>
      </linearGradient>
    </defs>
    <rect width="${W}" height="${H}" fill="url(#bg)"/>
    ${bubbles}
    <rect x="${x + 6}" y="${y + 18}" width="${w}" height="${h}" rx="${radius}" fill="#000000" fill-opacity="0.07"/>
    <rect x="${x}" y="${y}" width="${w}" height="${h}" rx="${radius}" fill="#ffffff"/>
    <rect x="${x + 20}" y="${y + 20}" width="${w - 40}" height="${h - strip - 30}" rx="${radius - 12}" fill="${hsl(hue, 50, 94)}"/>
    ${standIn}
    <text x="${x + 40}" y="${y + h - strip + 62}" font-family="${FONT_FAMILY}" font-size="46" font-weight="700" fill="#2b2b2b">${escapeXml(nameLines[0] ?? '')}</text>
    <text x="${x + 40}" y="${y + h - 28}" font-family="${FONT_FAMILY}" font-size="30" font-weight="400" fill="#7a7a7a">${escapeXml(subtitle[0] ?? '')}</text>
  </svg>`;
  const [rendered, photo] = await Promise.all([renderSvg(svg), spec.reference ? framedPhoto(spec.reference, frame, rng) : undefined]);
  // The card is opaque, so its premultiplied pixels are plain RGBA.
  const card = { ...rendered, channels: 4 };
  if (photo) await compositeRows(card, { data: photo.data, width: photo.info.width, height: photo.info.height, premultiplied: false }, y + 20, x + 20);
  return card;
}

/** The reference photo cut to the frame's picture area (closer in by its zoom, at a seeded spot), with rounded corners, as raw RGBA. */
async function framedPhoto(reference: ImageInput, frame: Frame, rng: Random): Promise<{ data: Buffer; info: sharp.OutputInfo }> {
  const { w, h, strip, radius, zoom } = frame;
  const pw = w - 40;
  const ph = h - strip - 30;
  const [zw, zh] = [Math.round(pw * zoom), Math.round(ph * zoom)];
  const mask = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${pw}" height="${ph}"><rect width="${pw}" height="${ph}" rx="${radius - 12}" fill="#fff"/></svg>`);
  const zoomed = await sharp(reference.data, { failOn: 'truncated', limitInputPixels: MAX_INPUT_PIXELS }).rotate().resize(zw, zh, { fit: 'cover' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return sharp(zoomed.data, { raw: { width: zoomed.info.width, height: zoomed.info.height, channels: 4 } })
    .extract({ left: rng.int(0, zw - pw), top: rng.int(0, zh - ph), width: pw, height: ph })
    .composite([{ input: mask, blend: 'dest-in' }])
    .raw()
    .toBuffer({ resolveWithObject: true });
}
