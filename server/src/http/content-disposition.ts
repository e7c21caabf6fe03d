/**
 * A name a browser may save as it is: no path separators or control characters, and never a
 * leading dot (a hidden file such as `.bashrc.zip`, or `..`), whatever a product or theme was
 * called; `fallback` when nothing is left.
 */
export function safeDownloadName(name: string, fallback: string): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = name.replace(/[\\/:*?"<>|\u0000-\u001f\u007f]+/g, '_').replace(/^[\s._]+/, '').trim();
  return /[\p{L}\p{N}]/u.test(cleaned.replace(/\.zip$/i, '')) ? cleaned : fallback;
}

/**
 * RFC 6266 for a download: an ASCII fallback for old clients and the exact UTF-8 name in
 * filename*, both made safe (safeDownloadName); `fallback` (plain ASCII) when nothing is left.
 */
export function contentDisposition(name: string, fallbackName: string): string {
  const safe = safeDownloadName(name, fallbackName);
  const ascii = safe.replace(/[^\x20-\x7e]+/g, '_').replace(/["\\%;]/g, '_').replace(/_+/g, '_');
  // What is left of a Chinese name in ASCII (`_.zip`) says nothing: the plain name instead.
  const fallback = /^[a-z0-9]/i.test(ascii) ? ascii : fallbackName;
  const encoded = encodeURIComponent(safe).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
