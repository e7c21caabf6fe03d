import sharp from 'sharp';

/** Decoded pixels, row after row, as sharp's `raw()` gives them. */
export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

/** RGBA pixels to lay over an image; resvg's are premultiplied, sharp's are not. */
export interface RawOverlay {
  data: Buffer;
  width: number;
  height: number;
  premultiplied: boolean;
}

/**
 * Composites `overlay` onto `base` at (left, top), in place, through only the rows it covers.
 * sharp's composite converts every pixel of its base (about 14 ms CPU for 1080×1440 however
 * small the overlay), so a title band a third of the image high costs a third of that. The
 * rows are contiguous in the buffer, so cutting them out and putting them back are copies.
 */
export async function compositeRows(base: RawImage, overlay: RawOverlay, top: number, left: number): Promise<void> {
  const rowBytes = base.width * base.channels;
  const rows = base.data.subarray(top * rowBytes, (top + overlay.height) * rowBytes);
  const pipeline = sharp(rows, { raw: { width: base.width, height: overlay.height, channels: base.channels as 3 | 4 } }).composite([
    { input: overlay.data, raw: { width: overlay.width, height: overlay.height, channels: 4, premultiplied: overlay.premultiplied }, top: 0, left },
  ]);
  // composite always adds an alpha channel; a base without one must keep its layout.
  if (base.channels === 3) pipeline.removeAlpha();
  const blended = await pipeline.raw().toBuffer();
  blended.copy(base.data, top * rowBytes);
}

/** A sharp pipeline reading `image` (to encode it). */
export function fromRaw(image: RawImage): sharp.Sharp {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels as 3 | 4 } });
}
