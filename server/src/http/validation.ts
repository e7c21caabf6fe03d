import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify';

type BuildValidator = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']>;
// The typings (the package's and Fastify's) describe the pool as returning `(schema) => …`; at
// runtime it returns Fastify's route compiler `({schema, httpPart, …}) => …`, typed so here.
type Pool = (externalSchemas: unknown, options: unknown) => FastifySchemaCompiler<unknown>;

/**
 * Query strings, path parameters and headers arrive as text and must be coerced ("20" → 20);
 * JSON bodies must not be: with coercion `{"is_active": null}` would become `false` and silently
 * deactivate a user, and `{"username": 123}` would pass as a string. So bodies get an Ajv
 * instance with the same options minus coercion.
 */
export function strictBodyValidators(): BuildValidator {
  const pool = AjvCompiler() as unknown as Pool;
  const build = (externalSchemas: unknown, ajvOptions: { customOptions: Record<string, unknown> }): FastifySchemaCompiler<unknown> => {
    const lenient = pool(externalSchemas, ajvOptions);
    const strict = pool(externalSchemas, { ...ajvOptions, customOptions: { ...ajvOptions.customOptions, coerceTypes: false } });
    return (route) => (route.httpPart === 'body' ? strict(route) : lenient(route));
  };
  return build as unknown as BuildValidator;
}
