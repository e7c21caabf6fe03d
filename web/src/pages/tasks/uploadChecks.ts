/**
 * What the browser checks before an image goes to the server (contract-decisions §8): its type
 * (JPEG, PNG or WebP, by the file's type and its name) and size (≤ 10 MB), so a refusal is worded
 * where the operator acted and nothing is sent that the server would refuse. An image that is not
 * 3:4 is framed as the operator chooses: a 3:4 window at `focus`, or kept whole on a colour.
 */
export const UPLOAD_MAX_BYTES = 10 * 1024 * 1024;
const TYPES: Record<string, readonly string[]> = {
  'image/jpeg': ['jpg', 'jpeg'],
  'image/png': ['png'],
  'image/webp': ['webp'],
};

export type UploadRefusal = 'type' | 'size' | 'empty';

/** Why the file cannot be sent, or undefined when it may be. */
export function checkUpload(file: { name: string; type: string; size: number }): UploadRefusal | undefined {
  const ext = file.name.includes('.') ? file.name.split('.').pop()!.toLowerCase() : '';
  const byType = TYPES[file.type.toLowerCase()];
  // The type must be an image type we take and the name must not say otherwise (a .gif renamed type, a .png.exe).
  if (!byType || (ext !== '' && !byType.includes(ext))) return 'type';
  if (file.size === 0) return 'empty';
  if (file.size > UPLOAD_MAX_BYTES) return 'size';
  return undefined;
}

/** 3:4 within a 1% tolerance: the server keeps such an image as it is. */
export function isThreeByFour(width: number, height: number): boolean {
  return width > 0 && height > 0 && Math.abs(width / height - 3 / 4) <= 0.01;
}

export type Framing = { fit: 'crop'; focus: number } | { fit: 'pad'; background: string };

/** The form fields of a framing, as the upload endpoint takes them. */
export function framingFields(framing: Framing | undefined): Record<string, string> {
  if (!framing) return {};
  if (framing.fit === 'crop') return { fit: 'crop', focus: String(Math.min(1, Math.max(0, Math.round(framing.focus * 100) / 100))) };
  return { fit: 'pad', background: /^#[0-9a-f]{6}$/i.test(framing.background) ? framing.background.toLowerCase() : '#ffffff' };
}

/**
 * The 3:4 window of a `width`×`height` image at `focus` (0..1 along the axis that is cut), in
 * shares of the image: where the preview draws it and what the server keeps.
 */
export function cropWindow(width: number, height: number, focus: number): { left: number; top: number; width: number; height: number; axis: 'x' | 'y' } {
  if (width / height > 3 / 4) {
    const w = (height * 3) / 4 / width;
    return { left: (1 - w) * focus, top: 0, width: w, height: 1, axis: 'x' };
  }
  const h = (width * 4) / 3 / height;
  return { left: 0, top: (1 - h) * focus, width: 1, height: h, axis: 'y' };
}

/** The natural size of an image file, read in the browser. */
export function readImageSize(file: Blob): Promise<{ width: number; height: number; url: string }> {
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(file);
    const img = new Image();
    img.onload = () => resolve({ width: img.naturalWidth, height: img.naturalHeight, url });
    img.onerror = () => {
      URL.revokeObjectURL(url);
      reject(new Error('unreadable'));
    };
    img.src = url;
  });
}
