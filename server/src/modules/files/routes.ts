import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { fail } from '../../http/errors.js';
import { ErrorEnvelope } from '../../http/schemas.js';
import { fileResponse } from '../../http/openapi.js';
import { verifyFileLink } from '../../storage/signed-url.js';
import { contentTypeOfKey, FILE_TYPES, isFileKey } from '../../storage/types.js';

/** The media types a stored file is served as, by its extension (parameters such as charset left out). */
const STORED_MEDIA_TYPES = [...new Set(Object.values(FILE_TYPES).map((type) => type.split(';')[0]!))];

/**
 * Stored files behind signed links (storage/signed-url.ts). Public on purpose: an `<img src>`
 * sends no bearer header, and a JWT must never travel in a URL. The signature is the credential.
 */
export const fileRoutes: ApiModule = async (app, ctx) => {
  app.get(
    '/files/:key',
    {
      config: { access: { auth: 'public' } },
      schema: {
        tags: ['files'],
        operationId: 'getFile',
        summary: 'Get a stored file',
        description: 'A stored file by its signed, short-lived link (no bearer token)',
        security: [],
        params: Type.Object({ key: Type.String({ maxLength: 100 }) }),
        querystring: Type.Object({
          exp: Type.Integer({ minimum: 0, maximum: 99_999_999_999 }),
          sig: Type.String({ minLength: 1, maxLength: 100 }),
        }),
        response: { 200: fileResponse('The file, inline', STORED_MEDIA_TYPES), 403: ErrorEnvelope, 404: ErrorEnvelope },
      },
    },
    async (request, reply) => {
      const { key } = request.params;
      if (!isFileKey(key)) throw fail('file.not_found');
      const check = verifyFileLink(ctx, key, request.query.exp, request.query.sig);
      if (check !== 'ok') throw fail(check === 'expired' ? 'file.link_expired' : 'file.link_invalid');
      const size = await ctx.storage.stat(key);
      if (!size) throw fail('file.not_found');
      const maxAge = Math.max(0, request.query.exp - Math.floor(ctx.clock.now().getTime() / 1000));
      return reply
        .header('content-type', contentTypeOfKey(key))
        .header('content-length', String(size.size))
        // Content-addressed: the bytes behind a key never change, only the link expires.
        .header('cache-control', `private, max-age=${maxAge}, immutable`)
        .header('content-disposition', 'inline')
        .send(await ctx.storage.createReadStream(key));
    },
  );
};
