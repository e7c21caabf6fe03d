/** JSON columns are written as text on both dialects (node-pg would turn a JS array into a PG array). */
export function json(value: unknown): string {
  return JSON.stringify(value ?? null);
}

export function nowIso(date: Date = new Date()): string {
  return date.toISOString();
}
