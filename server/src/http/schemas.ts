import { Type, type TSchema, type Static } from 'typebox';
import { ERROR_REASONS, FAILURE_REASONS, type ErrorReason, type FailureReason } from './reasons.js';

/** `{code: 0, data}`: the success envelope of every JSON route. */
export function Ok<T extends TSchema>(data: T) {
  return Type.Object({ code: Type.Literal(0), data });
}

/** `{reason, params}`: a key of the reason catalogue (server/src/http/reasons.ts) and the values its wording needs. */
export const ReasonParams = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Array(Type.String()), Type.Null()]), {
  description: 'the values the wording of the reason needs (field, words, minutes, status…), by name',
});

/** The reason key of a stored failure (FAILURE_REASONS of http/reasons.ts), beside its English text; null when there is none. */
export const FailureKey = Type.Union([Type.Enum(Object.keys(FAILURE_REASONS) as FailureReason[]), Type.Null()], {
  description: 'reason key of the failure beside it (reason catalogue, docs/api.md); the console words the failure from it',
});
/** The params of a stored failure's reason; null when there is none. */
export const FailureParams = Type.Union([ReasonParams, Type.Null()]);

export const ErrorEnvelope = Type.Object(
  {
    code: Type.Integer(),
    message: Type.String({ description: 'English, human-readable, names the field or rule at fault' }),
    reason: Type.Enum(Object.keys(ERROR_REASONS) as ErrorReason[], { description: 'stable key of the reason catalogue: word the error from it, never from message' }),
    params: ReasonParams,
  },
  { $id: 'ErrorEnvelope', description: 'Error body: code (see contract-decisions §2), a human-readable English message, and the reason key with its params (docs/api.md, Errors)' },
);

/** Success response for routes whose data shape the contract leaves open and that return nothing useful. */
export const OkEmpty = Ok(Type.Object({}));

export function ok<T>(data: T): { code: 0; data: T } {
  return { code: 0, data };
}

export const DateTime = Type.String({ format: 'date-time' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A record id: a positive 32-bit integer (every id column is one). */
export const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });
export const IdParams = Type.Object({ id: Id });
export type IdParams = Static<typeof IdParams>;

export const PageQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  page_size: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});
export type PageQuery = Static<typeof PageQuery>;

export function Paged<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    total: Type.Integer(),
    page: Type.Integer(),
    page_size: Type.Integer(),
  });
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

/** Error responses every authenticated route can give, for the OpenAPI document. */
export const commonErrors = {
  400: ErrorEnvelope,
  401: ErrorEnvelope,
  403: ErrorEnvelope,
  404: ErrorEnvelope,
  429: ErrorEnvelope,
};

export function pageWindow(query: PageQuery): { offset: number; limit: number } {
  return { offset: (query.page - 1) * query.page_size, limit: query.page_size };
}

export function pageOf<T>(items: T[], total: number, query: PageQuery): Page<T> {
  return { items, total, page: query.page, page_size: query.page_size };
}
