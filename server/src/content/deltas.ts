/**
 * Turns the streamed JSON of a `notes` reply into readable text deltas: the characters of each
 * note's `content` string as they arrive, tagged with the note's index in the set. A small
 * incremental JSON scanner (containers, keys, strings with escapes) is enough because the
 * reply's shape is ours (schemas.ts); anything else in the stream is skipped.
 */
export class NotesDeltaExtractor {
  private readonly stack: Array<{ kind: 'object'; key: string | null; expectKey: boolean } | { kind: 'array'; index: number }> = [];
  private inString = false;
  private stringIsKey = false;
  private keyBuffer = '';
  private escape: '' | '\\' | 'u' = '';
  private unicode = '';
  /** contentIndex() of the string being read, fixed when it opens. */
  private stringIndex = -1;

  constructor(private readonly emit: (index: number, delta: string) => void) {}

  /** The note index when the scanner is inside `notes[i].content`, else -1. */
  private contentIndex(): number {
    const [root, notes, note] = this.stack;
    if (this.stack.length !== 3 || this.stringIsKey) return -1;
    if (root?.kind !== 'object' || root.key !== 'notes') return -1;
    if (notes?.kind !== 'array' || note?.kind !== 'object' || note.key !== 'content') return -1;
    return notes.index;
  }

  push(chunk: string): void {
    let out = '';
    let outIndex = -1;
    for (const ch of chunk) {
      if (!this.inString) {
        this.structural(ch);
        if (this.inString) this.stringIndex = this.contentIndex();
        continue;
      }
      const decoded = this.decode(ch);
      if (decoded === undefined) continue;
      if (this.stringIsKey) {
        this.keyBuffer += decoded;
      } else if (this.stringIndex >= 0) {
        if (outIndex !== this.stringIndex && out) {
          this.emit(outIndex, out);
          out = '';
        }
        outIndex = this.stringIndex;
        out += decoded;
      }
    }
    if (out) this.emit(outIndex, out);
  }

  /** One character inside a string: its decoded text, or undefined (escape in progress, or the closing quote). */
  private decode(ch: string): string | undefined {
    if (this.escape === 'u') {
      this.unicode += ch;
      if (this.unicode.length < 4) return undefined;
      const code = parseInt(this.unicode, 16);
      this.escape = '';
      this.unicode = '';
      return Number.isNaN(code) ? '' : String.fromCharCode(code);
    }
    if (this.escape === '\\') {
      this.escape = ch === 'u' ? 'u' : '';
      if (ch === 'u') return undefined;
      return ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' } as Record<string, string>)[ch] ?? ch;
    }
    if (ch === '\\') {
      this.escape = '\\';
      return undefined;
    }
    if (ch === '"') {
      this.inString = false;
      this.endString();
      return undefined;
    }
    return ch;
  }

  private structural(ch: string): void {
    const top = this.stack[this.stack.length - 1];
    switch (ch) {
      case '{':
        this.stack.push({ kind: 'object', key: null, expectKey: true });
        break;
      case '[':
        this.stack.push({ kind: 'array', index: 0 });
        break;
      case '}':
      case ']':
        this.stack.pop();
        break;
      case ',':
        if (top?.kind === 'array') top.index += 1;
        else if (top?.kind === 'object') top.expectKey = true;
        break;
      case ':':
        if (top?.kind === 'object') top.expectKey = false;
        break;
      case '"':
        this.inString = true;
        this.stringIsKey = top?.kind === 'object' && top.expectKey;
        this.keyBuffer = '';
        break;
      default:
        break;
    }
  }

  private endString(): void {
    const top = this.stack[this.stack.length - 1];
    if (this.stringIsKey && top?.kind === 'object') top.key = this.keyBuffer;
    this.stringIsKey = false;
  }
}
