import { createHash } from 'node:crypto';

/**
 * A small seeded generator (sfc32 over a SHA-256 of the seed): the offline provider must answer
 * the same for the same task, strategy and index on every machine and every run.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(private readonly seed: string) {
    const h = createHash('sha256').update(seed).digest();
    this.a = h.readUInt32LE(0);
    this.b = h.readUInt32LE(4);
    this.c = h.readUInt32LE(8);
    this.d = h.readUInt32LE(12);
    for (let i = 0; i < 12; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A new generator for a sub-part, so adding draws in one part never shifts another. */
  fork(label: string | number): Random {
    return new Random(`${this.seed}/${label}`);
  }
}

/** The seed of a call: the intent's own `seed` when it has one, else its whole input. */
export function seedOf(input: unknown, fallback: string): string {
  if (input && typeof input === 'object' && typeof (input as { seed?: unknown }).seed === 'string') return (input as { seed: string }).seed;
  return input === undefined ? fallback : `${fallback}:${JSON.stringify(input)}`;
}
