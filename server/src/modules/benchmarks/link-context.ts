import { fetchFailureKind, fetchPublic, type Resolver } from '../../security/ssrf.js';
import type { AnalysisWarningCode } from './warnings.js';

export interface LinkContext {
  title?: string;
  text?: string;
  warning?: AnalysisWarningCode;
}

const PAGE_TEXT_LIMIT = 3000;

function decode(body: Buffer, contentType: string): string {
  const declared = /charset=([\w-]+)/i.exec(contentType)?.[1] ?? /<meta[^>]+charset=["']?([\w-]+)/i.exec(body.toString('latin1', 0, 2048))?.[1];
  try {
    return new TextDecoder(declared ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function unescapeHtml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return code > 0 && code < 0x110000 ? String.fromCodePoint(code) : '';
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

/** Title, description and visible text of a page; markup, scripts and styles dropped. */
export function pageToText(html: string): { title: string; text: string } {
  const title = unescapeHtml(/<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? '').replace(/\s+/g, ' ').trim();
  const description = /<meta[^>]+(?:name|property)=["'](?:og:)?description["'][^>]*content=["']([^"']*)["']/i.exec(html)?.[1] ?? '';
  const body = html
    .replace(/<(script|style|noscript|template|svg)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]+>/g, ' ');
  const text = unescapeHtml(`${description}\n${body}`)
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return { title: title.slice(0, 200), text: text.slice(0, PAGE_TEXT_LIMIT) };
}

/**
 * The page behind a benchmark's link, as context for the analysis. Fetched through the SSRF
 * guard (public addresses only, redirects checked, 5 s, 512 KiB); whatever it says is data
 * for the model, never instructions. A failure is a warning, never an error.
 */
export async function fetchLinkContext(url: string, resolve: Resolver): Promise<LinkContext> {
  try {
    const page = await fetchPublic(url, { maxBytes: 512 * 1024, timeoutMs: 5000, accept: 'text/html,text/plain;q=0.9,*/*;q=0.1', resolve });
    if (page.status < 200 || page.status >= 300) return { warning: 'link_error_status' };
    if (!/^text\/(html|plain)|application\/xhtml/i.test(page.contentType)) return { warning: 'link_not_html' };
    const raw = decode(page.body, page.contentType);
    return /html/i.test(page.contentType) ? pageToText(raw) : { title: '', text: raw.replace(/\s+/g, ' ').slice(0, PAGE_TEXT_LIMIT) };
  } catch (err) {
    return { warning: `link_${fetchFailureKind(err)}` };
  }
}
