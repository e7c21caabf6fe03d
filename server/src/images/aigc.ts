/**
 * The implicit label of GB 45438-2025 (网络安全技术 人工智能生成合成内容标识方法) for image files:
 * one XMP property `AIGC` in the TC260 namespace whose value is a JSON object of the standard's
 * seven fields. sharp (libvips) writes the packet where each format keeps XMP (JPEG APP1, PNG
 * iTXt); this module only composes the packet's text.
 */

export const TC260_NAMESPACE = 'http://www.tc260.org.cn/ns/AIGC/1.0/';

/** What this service says about one model-drawn image (contract-decisions §12). */
export interface AigcLabel {
  /** The provider of the connection that drew it. */
  producer: string;
  /** The image's id in this service. */
  produceId: string;
  /** This service: PUBLIC_URL, else the workspace's name. */
  propagator: string;
  propagateId: string;
}

/** The standard's fields in its order; the reserved codes stay empty unless a provider set them. */
export interface AigcFields {
  Label: string;
  ContentProducer: string;
  ProduceID: string;
  ReservedCode1: string;
  ContentPropagator: string;
  PropagateID: string;
  ReservedCode2: string;
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const escapeXml = (text: string) => text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);
const unescapeXml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|apos|#x[0-9a-f]+|#\d+);/gi, (entity, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith('#')) return String.fromCodePoint(parseInt(lower.slice(1), 10));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[lower] ?? entity;
  });

/** The prefix an XMP packet binds to the TC260 namespace, whatever it chose (TC260 by convention). */
function tc260Prefix(xmp: string): string | null {
  const match = new RegExp(`xmlns:([\\w.-]+)\\s*=\\s*["']${TC260_NAMESPACE.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}["']`).exec(xmp);
  return match ? match[1]! : null;
}

/**
 * The `AIGC` element of an XMP packet and its fields (none when its value is not a JSON object:
 * the element is still the one to fill, never a second beside it). Null when absent.
 */
function aigcElement(xmp: string): { element: string; prefix: string; fields: Partial<AigcFields> } | null {
  const prefix = tc260Prefix(xmp);
  if (!prefix) return null;
  const match = new RegExp(`<${prefix}:AIGC>([\\s\\S]*?)</${prefix}:AIGC>`).exec(xmp);
  if (!match) return null;
  const fields: Partial<AigcFields> = {};
  try {
    const parsed: unknown = JSON.parse(unescapeXml(match[1]!));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      for (const [key, value] of Object.entries(parsed)) if (typeof value === 'string' || typeof value === 'number') fields[key as keyof AigcFields] = String(value);
    }
  } catch {
    // An unreadable value is replaced by ours below.
  }
  return { element: match[0], prefix, fields };
}

/** The TC260 fields an XMP packet carries, or null: how the tests read a delivered image's label. */
export function readAigc(xmp: string | Buffer | undefined): Partial<AigcFields> | null {
  if (!xmp) return null;
  return aigcElement(typeof xmp === 'string' ? xmp : xmp.toString('utf8'))?.fields ?? null;
}

/**
 * The XMP packet to write into a model-drawn image: `existing` (the provider's packet, kept as
 * it is: its C2PA or IPTC provenance properties included) with the AIGC field. A provider that
 * labelled the image itself keeps its producer fields (the standard has the propagator add its
 * own to an existing label, not replace it); ours fill what it left empty and the propagator's.
 */
export function labelledXmp(existing: string | Buffer | undefined, label: AigcLabel): string {
  const text = existing === undefined ? '' : typeof existing === 'string' ? existing : existing.toString('utf8');
  const found = text ? aigcElement(text) : null;
  const theirs = found?.fields ?? {};
  const fields: AigcFields = {
    Label: theirs.Label || '1',
    ContentProducer: theirs.ContentProducer || label.producer,
    ProduceID: theirs.ProduceID || label.produceId,
    ReservedCode1: theirs.ReservedCode1 ?? '',
    ContentPropagator: label.propagator,
    PropagateID: label.propagateId,
    ReservedCode2: theirs.ReservedCode2 ?? '',
  };
  const value = escapeXml(JSON.stringify(fields));
  if (found) return text.replace(found.element, () => `<${found.prefix}:AIGC>${value}</${found.prefix}:AIGC>`);
  const description = `<rdf:Description rdf:about="" xmlns:TC260="${TC260_NAMESPACE}"><TC260:AIGC>${value}</TC260:AIGC></rdf:Description>`;
  // Another rdf:Description beside the provider's keeps every property it wrote.
  const end = text.lastIndexOf('</rdf:RDF>');
  if (end >= 0 && /xmlns:rdf\s*=/.test(text)) return `${text.slice(0, end)}${description}${text.slice(end)}`;
  // The packet wrapper of XMP part 1, which scanners that read files byte-wise look for.
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">${description}</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
}
