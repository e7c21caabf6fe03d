import { fail } from '../../http/errors.js';

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

function realDay(text: string): Date | undefined {
  const m = DAY.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  // Date.UTC rolls 02-30 over into March; a real date survives the round trip.
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d ? date : undefined;
}

/**
 * A `date_from` / `date_to` bound (contract-decisions §3): `YYYY-MM-DD` covers the whole UTC
 * day, inclusive on both ends, so `date_to` becomes "before the next midnight"; an ISO 8601
 * date-time with an offset is taken as it is, inclusive. Returned as ISO UTC, the form in
 * which created_at compares on both dialects.
 */
export function parseDateBound(raw: string, field: string, edge: 'start' | 'end'): { value: string; inclusive: boolean } {
  const text = raw.trim();
  const day = realDay(text);
  if (day) {
    if (edge === 'start') return { value: day.toISOString(), inclusive: true };
    return { value: new Date(day.getTime() + 86_400_000).toISOString(), inclusive: false };
  }
  const dateTime = DATE_TIME.exec(text);
  const ms = dateTime && realDay(dateTime[1]!) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw fail('validation.date', { field: `querystring.${field}`, value: raw.slice(0, 40) });
  }
  return { value: new Date(ms).toISOString(), inclusive: true };
}
