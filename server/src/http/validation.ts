import { isUtf8 } from 'node:buffer';
import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyInstance, FastifySchemaCompiler, FastifySchemaValidationError, FastifyServerOptions } from 'fastify';
import { fail } from './errors.js';

type BuildValidator = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']>;
// The typings (the package's and Fastify's) describe the pool as returning `(schema) => …`; at
// runtime it returns Fastify's route compiler `({schema, httpPart, …}) => …`, typed so here.
type Pool = (externalSchemas: unknown, options: unknown) => FastifySchemaCompiler<unknown>;
type Validator = ((data: unknown, context?: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null; schemaEnv?: unknown };

/** Every id column is a 32-bit integer (PostgreSQL `integer`, SQLite rowids in practice). */
export const INT32_MAX = 2147483647;
const INT32_MIN = -2147483648;

/**
 * Query strings, path parameters and headers arrive as text and must be coerced ("20" → 20);
 * JSON bodies must not be: with coercion `{"is_active": null}` would become `false` and silently
 * deactivate a user, and `{"username": 123}` would pass as a string. So bodies get an Ajv
 * instance with the same options minus coercion.
 *
 * Two rules hold for every route without being written into each schema (issue 17): an integer
 * anywhere in a request fits a 32-bit column (a larger id reached PostgreSQL as an out-of-range
 * error, a 500), and no string carries a NUL character (PostgreSQL text cannot hold one). Both
 * are 400 / 40000 before any handler runs, on SQLite and PostgreSQL alike.
 */
export function strictBodyValidators(): BuildValidator {
  const pool = AjvCompiler() as unknown as Pool;
  // One bounded copy per schema object, so a schema many routes share (IdParams, PageQuery) is
  // still one object to Ajv, which caches its compilations by object.
  const bounded = new WeakMap<object, unknown>();
  const boundedOnce = (schema: unknown) => {
    if (schema === null || typeof schema !== 'object') return schema;
    if (!bounded.has(schema)) bounded.set(schema, withInt32Bounds(schema));
    return bounded.get(schema);
  };
  const build = (externalSchemas: unknown, ajvOptions: { customOptions: Record<string, unknown> }): FastifySchemaCompiler<unknown> => {
    const lenient = pool(externalSchemas, ajvOptions);
    const strict = pool(externalSchemas, { ...ajvOptions, customOptions: { ...ajvOptions.customOptions, coerceTypes: false } });
    return (route) => {
      const compile = route.httpPart === 'body' ? strict : lenient;
      return withoutNul(compile({ ...route, schema: boundedOnce(route.schema) }) as Validator);
    };
  };
  return build as unknown as BuildValidator;
}

/** A copy of the schema whose integers are bounded to 32 bits (tighter bounds are kept). */
export function withInt32Bounds<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(withInt32Bounds) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = withInt32Bounds(value);
  if (copy.type === 'integer') {
    copy.maximum = Math.min(typeof copy.maximum === 'number' ? copy.maximum : INT32_MAX, INT32_MAX);
    copy.minimum = Math.max(typeof copy.minimum === 'number' ? copy.minimum : INT32_MIN, INT32_MIN);
  }
  return copy as T;
}

/** The Ajv validator, then the NUL rule over whatever it accepted (coerced and defaulted). */
function withoutNul(validate: Validator): Validator {
  const wrapped: Validator = (data, context) => {
    const valid = validate(data, context);
    if (!valid) {
      wrapped.errors = validate.errors;
      return valid;
    }
    const at = findString(data, '', (s) => s.includes('\u0000'));
    if (at === undefined) return valid;
    wrapped.errors = [{ instancePath: at, keyword: 'nul', schemaPath: '#', params: {}, message: 'must not contain the NUL character (U+0000)' }];
    return false;
  };
  // Fastify passes the parent object along to Ajv validators (so a root value can be replaced).
  wrapped.schemaEnv = validate.schemaEnv;
  return wrapped;
}

/** The JSON pointer of the first string (a value or a key) that `bad` matches. */
function findString(value: unknown, path: string, bad: (s: string) => boolean): string | undefined {
  if (typeof value === 'string') return bad(value) ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findString(value[i], `${path}/${i}`, bad);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    if (bad(key)) return `${path}/${key.replace(/[^\x20-\x7e]/g, '?')}`;
    const found = findString(item, `${path}/${key}`, bad);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * JSON bodies must be UTF-8 (RFC 8259 §8.1) and their strings well-formed Unicode: invalid bytes
 * and lone surrogates (`"\ud800"`) were silently stored as U+FFFD. Both are 400 / 40000; the
 * parsing itself is Fastify's (empty bodies, prototype poisoning).
 */
/** In a `u` regular expression a surrogate pair is one code point; only a lone half is in Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

export function registerStrictJsonParser(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (!isUtf8(bytes)) return done(fail('request.not_utf8'), undefined);
    parseJson(request, bytes.toString('utf8'), (err, value) => {
      if (err) return done(err, undefined);
      const at = findString(value, '', (s) => LONE_SURROGATE.test(s));
      if (at !== undefined) return done(fail('request.lone_surrogate', { field: `body${at.replaceAll('/', '.')}` }), undefined);
      done(null, value);
    });
  });
}

/**
 * A route hook for an optional JSON body: a request without a body is validated as `{}` (Ajv
 * refuses `undefined` against an object schema), so a client that sends none keeps working.
 */
export function absentBodyAsEmpty(request: { body: unknown }, _reply: unknown, done: () => void): void {
  request.body ??= {};
  done();
}
