import { existsSync } from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChildLoggerOptions, Logger } from 'pino';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import helmet from 'helmet';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fastifyStatic from '@fastify/static';
import compress from '@fastify/compress';
import { randomUUID } from 'node:crypto';
import type { AppContext } from './context.js';
import { authHooks, rejectRefusedRequests } from './http/auth.js';
import { API_PREFIX, type App } from './http/module.js';
import { fail } from './http/errors.js';
import { clientErrorHandler, installErrorHandlers, sendError } from './http/errors-handler.js';
import { registerRateLimit } from './http/rate-limit.js';
import { documentEveryRoute, openapiOptions } from './http/openapi.js';
import { registerStrictJsonParser, strictBodyValidators } from './http/validation.js';
import { sharedSerializers } from './http/serializers.js';
import { apiModules } from './modules/index.js';
import { mcpRoutes, routeRegistry } from './modules/mcp/routes.js';
import { opsRoutes } from './ops/routes.js';
import { lazyChildLogger } from './logging.js';

export { API_PREFIX, type App, type ApiModule } from './http/module.js';

export async function buildApp(ctx: AppContext): Promise<App> {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    childLoggerFactory: (logger, bindings, opts) => lazyChildLogger(logger as Logger, bindings, opts as ChildLoggerOptions) as FastifyBaseLogger,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming) ? incoming : randomUUID();
    },
    bodyLimit: ctx.config.bodyLimitBytes,
    trustProxy: ctx.config.trustProxy,
    // Our own 503 below, in the envelope, instead of Fastify's fixed body.
    return503OnClosing: false,
    clientErrorHandler,
    ajv: {
      // Extra fields are dropped rather than refused (older clients send more than we read);
      // query strings and path parameters arrive as text and are coerced; bodies are not
      // (strictBodyValidators).
      customOptions: { removeAdditional: true, coerceTypes: 'array', useDefaults: true, allErrors: false },
    },
    // The validators fast-json-stringify runs for anyOf branches are compiled here, at start
    // (~0.4 s), not by Ajv on the first response that reaches each branch: those compiled on the
    // event loop, 5 ms and more at a time, while tasks generate.
    serializerOpts: { compileValidators: true },
    schemaController: { compilersFactory: { buildValidator: strictBodyValidators(), buildSerializer: sharedSerializers() } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  installErrorHandlers(app);
  // A JSON API: a text/plain body is a client mistake (415), not a string to validate.
  app.removeContentTypeParser('text/plain');
  registerStrictJsonParser(app);
  // While draining on shutdown, requests already accepted finish; new ones on kept-alive
  // connections are turned away so the client retries on another process.
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
    // Node closes idle keep-alive connections once, when close() starts: a response finishing
    // after that leaves its connection open until keepAliveTimeout (72 s), stalling the drain.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 100).unref();
    app.server.once('close', () => clearInterval(sweep));
  });
  // Hooks on every request take `done` rather than being async: no promise per hook per request.
  app.addHook('onRequest', (_request, _reply, done) => {
    done(draining ? fail('server.shutting_down') : undefined);
  });
  // First, so its timing and request-id hooks see every request, refused ones included.
  await opsRoutes(app, ctx);

  // helmet decides the headers; with these options (no per-request CSP nonces) they are the same
  // for every response, so they are worked out once and copied into each reply.
  // (@fastify/helmet rebuilt the middleware, and re-parsed the CSP, on every request.)
  const securityHeaders = staticHeadersOf(
    helmet({
      contentSecurityPolicy: {
        directives: {
          'img-src': ["'self'", 'data:', 'blob:'],
          'script-src': ["'self'"],
          'style-src': ["'self'", "'unsafe-inline'"],
          // The service is often reached over plain HTTP on a LAN address; upgrading its asset
          // requests to HTTPS there would break the client.
          'upgrade-insecure-requests': null,
        },
      },
      crossOriginEmbedderPolicy: false,
    }),
  );
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(securityHeaders);
    done();
  });
  if (ctx.config.corsOrigins.length > 0) {
    await app.register(cors, { origin: ctx.config.corsOrigins, credentials: false });
  }
  // Replies of a compressible type (mime-db: JSON, CSV, text…) over 1 KB, in the encoding the
  // client asks for (br, else gzip), brotli at the plugin's quality 4. Left alone: event streams
  // (hijacked, written raw), zips and images (not compressible types), and anything already
  // encoded (the web client's precompressed assets). Request bodies are not inflated: nothing
  // here accepts compressed uploads.
  await app.register(compress, { threshold: 1024, encodings: ['br', 'gzip'], globalDecompression: false });

  await app.register(swagger, openapiOptions());
  documentEveryRoute(app);
  if (ctx.config.apiDocs === 'public') await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    staticCSP: true,
    // The UI's syntax highlighter sets inline styles on the responses it shows; and, as above, no
    // upgrade to HTTPS on a plain-HTTP deployment.
    transformStaticCSP: (header) =>
      header.replace("style-src 'self' https:", "style-src 'self' 'unsafe-inline'").replace(/\s*upgrade-insecure-requests;/, ''),
    uiConfig: { persistAuthorization: false },
  });

  await app.register(authHooks, { ctx });
  await registerRateLimit(app, ctx);
  rejectRefusedRequests(app);
  // The MCP tools are API routes: their schemas and access, as registered (issue 33).
  const routes = routeRegistry(app);

  await app.register(
    async (api) => {
      const typed = api.withTypeProvider<TypeBoxTypeProvider>() as App;
      if (ctx.config.apiDocs === 'public') {
        typed.get('/openapi.json', { schema: { hide: true }, config: { access: { auth: 'public' } } }, async () => app.swagger());
      }
      for (const register of apiModules) await register(typed, ctx);
    },
    { prefix: API_PREFIX },
  );

  await mcpRoutes(app, ctx, routes);

  await serveWebClient(app, ctx.config.webDistDir);
  return app;
}

type Middleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/** The headers a middleware that only sets headers, the same ones whatever the request, sets. */
function staticHeadersOf(middleware: Middleware): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: unknown) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (err) => {
    if (err) throw err;
  });
  return headers;
}

/**
 * Vite names everything under assets/ by its content hash, so a name never changes meaning:
 * browsers keep those a year without asking again. index.html (and anything else) is revalidated
 * on every load, so a new release is picked up at once.
 */
function cacheControlOf(distDir: string, filePath: string): string {
  const relative = path.relative(distDir, filePath);
  return relative.startsWith(`assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache';
}

/** The built web client at `/`, with client-side routes falling back to index.html. */
async function serveWebClient(app: App, distDir: string) {
  const hasClient = existsSync(path.join(distDir, 'index.html'));
  if (hasClient) {
    await app.register(fastifyStatic, {
      root: distDir,
      prefix: '/',
      wildcard: false,
      index: ['index.html'],
      // The .br / .gz siblings the web build writes (vite-plugin-compression2), by Accept-Encoding.
      preCompressed: true,
      cacheControl: false,
      setHeaders: (res, filePath) => {
        res.setHeader('cache-control', cacheControlOf(distDir, filePath));
        // The body depends on Accept-Encoding (preCompressed): a shared cache must key on it.
        res.setHeader('vary', 'accept-encoding');
      },
    });
  }
  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split('?')[0]!;
    const isApi = pathname === '/api' || pathname.startsWith('/api/');
    // A missing file (a name with an extension) stays a 404: answering a script or image
    // request with index.html only hides the broken link.
    const isClientRoute = !/\.[^/]*$/.test(pathname);
    if (!isApi && isClientRoute && hasClient && (request.method === 'GET' || request.method === 'HEAD')) {
      return reply.type('text/html').sendFile('index.html');
    }
    return sendError(reply, fail('route.not_found', { method: request.method, path: pathname }));
  });
}
