import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type BuildSerializer = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>;
// Fastify's route serializer compiler, as the package's typings do not describe it.
type RouteSerializerCompiler = (route: { schema: unknown; method: string; url: string; httpStatus: string; contentType?: string }) => (data: unknown) => string;

/** Compiled serializers of this process, by the content of their schema and options. */
const compiled = new Map<string, (data: unknown) => string>();

/**
 * Fastify's response serializers (fast-json-stringify), each compiled once per distinct schema.
 * Fastify compiles one per route and status, about 1,200 at a start, yet they hold 77 distinct
 * schemas: every route repeats the shared error responses (documentEveryRoute), and each route
 * builds its own `Ok(…)` wrapper of a shared schema. Compiling one takes milliseconds, Ajv
 * included (serializerOpts.compileValidators), so a start spent seconds on copies. Keyed by
 * content, not object, because the copies are distinct objects; kept per process, so a process
 * that builds several apps (the tests, the benches) compiles each schema once.
 */
export function sharedSerializers(): BuildSerializer {
  const selector = SerializerSelector();
  const build = (externalSchemas: unknown, serializerOpts: unknown): RouteSerializerCompiler => {
    const compile = selector(externalSchemas as never, serializerOpts as never) as unknown as RouteSerializerCompiler;
    const context = JSON.stringify([externalSchemas, serializerOpts]);
    return (route) => {
      const key = `${context}${JSON.stringify(route.schema)}`;
      let serialize = compiled.get(key);
      if (!serialize) {
        serialize = compile(route);
        compiled.set(key, serialize);
      }
      return serialize;
    };
  };
  return build as unknown as BuildSerializer;
}
