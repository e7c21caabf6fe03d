import { Type } from 'typebox';
import type { ApiModule } from '../../http/module.js';
import { currentUser } from '../../http/auth.js';
import { fail } from '../../http/errors.js';
import { commonErrors, DateTime, ErrorEnvelope, IdParams, Nullable, Ok, ok, OkEmpty, PageQuery, Paged } from '../../http/schemas.js';
import { multipartBody } from '../../http/openapi.js';
import { BenchmarkView } from '../benchmarks/views.js';
import { readUpload, uploadScope } from '../../http/upload.js';
import * as service from './service.js';
import { exportProducts } from './export.js';

const tags = ['products'];
const ShortText = (maxLength: number) => Type.String({ maxLength });
const ProductView = Type.Object({
  id: Type.Integer(),
  workspace_id: Type.Integer(),
  name: Type.String(),
  category: Type.String(),
  source: Type.Union([Type.Literal('preset'), Type.Literal('custom')]),
  selling_points: Type.Array(Type.String()),
  style_tone: Nullable(Type.String()),
  text_angles: Type.Array(Type.String()),
  custom_prompt: Nullable(Type.String()),
  appearance: Nullable(Type.String({ description: 'what the product looks like (form, colour, packaging, label text), given to every image prompt' })),
  banned_word_ids: Type.Array(Type.Integer()),
  created_at: DateTime,
  updated_at: DateTime,
}, { $id: 'Product' });
const ProductBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  category: Type.String({ minLength: 1, maxLength: 50, description: 'free text, not an enumeration' }),
  source: Type.Union([Type.Literal('preset'), Type.Literal('custom')]),
  selling_points: Type.Optional(Type.Array(ShortText(200), { maxItems: 30 })),
  style_tone: Type.Optional(Nullable(ShortText(200))),
  text_angles: Type.Optional(Type.Array(ShortText(200), { maxItems: 30 })),
  custom_prompt: Type.Optional(Nullable(ShortText(4000))),
  appearance: Type.Optional(Nullable(Type.String({ maxLength: 300, description: 'what the product looks like: form, colour, packaging, label text (e.g. 白色磨砂圆罐，银色盖子，罐身印有“云朵柔雾”); given to every image prompt, in words where the image model takes no reference photo' }))),
  banned_word_ids: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), { maxItems: 1000, description: 'ids of this workspace’s banned words attached to the product: they apply to its texts only, while a word attached to no product applies to every product' })),
});
const ImageView = Type.Object({
  id: Type.Integer(),
  product_id: Type.Integer(),
  url: Type.String({ description: 'signed link, valid at least one hour' }),
  thumb_url: Nullable(Type.String()),
  scene: Type.String(),
  is_primary: Type.Boolean(),
  mime: Type.String(),
  width: Type.Integer(),
  height: Type.Integer(),
  created_at: DateTime,
}, { $id: 'ProductImage' });
const ProductsExport = Type.Object({
  format: Type.Literal('cps-products-export/1'),
  exported_at: DateTime,
  workspace_id: Type.Integer(),
  products: Type.Array(
    Type.Object({
      ...ProductView.properties,
      images: Type.Array(Type.Omit(ImageView, ['product_id', 'url', 'thumb_url']), { description: 'metadata only: links expire, bytes are not exported' }),
      benchmarks: Type.Array(BenchmarkView),
    }),
  ),
});
const ImageParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2147483647 }),
  image_id: Type.Integer({ minimum: 1, maximum: 2147483647 }),
});
const Scene = Type.String({ maxLength: 100, description: 'free text, e.g. 细节特写 / packaging / 使用前' });
const uploadErrors = { 409: ErrorEnvelope, 413: ErrorEnvelope, 415: ErrorEnvelope };

export const productRoutes: ApiModule = async (app, ctx) => {
  app.get(
    '/products',
    {
      schema: {
        tags,
        operationId: 'listProducts',
        summary: 'List products',
        description: 'Products of the workspace; `q` searches the name',
        querystring: Type.Intersect([PageQuery, Type.Object({ q: Type.Optional(Type.String({ maxLength: 100 })) })]),
        response: { 200: Ok(Paged(ProductView)), ...commonErrors },
      },
    },
    async (request) => ok(await service.listProducts(ctx, currentUser(request), request.query)),
  );

  app.get(
    '/products/export',
    {
      schema: {
        tags,
        operationId: 'exportProducts',
        summary: 'Export all products as a JSON file',
        description: 'All products of the workspace with benchmarks and image metadata, as a JSON file',
        response: {
          200: { description: 'The export (attachment products-<date>.json)', content: { 'application/json': { schema: ProductsExport } } },
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const auth = currentUser(request);
      const body = await exportProducts(ctx, auth);
      const date = ctx.clock.now().toISOString().slice(0, 10);
      return reply
        .header('content-type', 'application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="products-${date}.json"`)
        // Serialised by the response schema: only the declared fields leave.
        .send(body);
    },
  );

  app.post(
    '/products',
    { config: { access: { can: 'products.write' } }, schema: { tags, operationId: 'createProduct', summary: 'Create a product', description: 'Create a product of the current workspace', body: ProductBody, response: { 200: Ok(ProductView), ...commonErrors } } },
    async (request) => ok(await service.createProduct(ctx, currentUser(request), request.body)),
  );

  app.get(
    '/products/:id',
    { schema: { tags, operationId: 'getProduct', summary: 'Get a product', description: 'One product of the current workspace', params: IdParams, response: { 200: Ok(ProductView), ...commonErrors } } },
    async (request) => ok(await service.getProduct(ctx, currentUser(request), request.params.id)),
  );

  app.put(
    '/products/:id',
    { config: { access: { can: 'products.write' } }, schema: { tags, operationId: 'replaceProduct', summary: 'Replace a product', description: 'Replace a product (same body as create)', params: IdParams, body: ProductBody, response: { 200: Ok(ProductView), ...commonErrors } } },
    async (request) => ok(await service.updateProduct(ctx, currentUser(request), request.params.id, request.body)),
  );

  app.delete(
    '/products/:id',
    {
      config: { access: { can: 'products.write' } },
      schema: { tags, operationId: 'deleteProduct', summary: 'Delete a product', description: 'Delete a product (409 while tasks refer to it)', params: IdParams, response: { 200: OkEmpty, 409: ErrorEnvelope, ...commonErrors } },
    },
    async (request) => {
      await service.deleteProduct(ctx, currentUser(request), request.params.id);
      return ok({});
    },
  );

  app.get(
    '/products/:id/images',
    {
      schema: { tags, operationId: 'listProductImages', summary: 'List the images of a product', description: 'Images of a product, oldest first', params: IdParams, response: { 200: Ok(Type.Object({ items: Type.Array(ImageView) })), ...commonErrors } },
    },
    async (request) => ok({ items: await service.listProductImages(ctx, currentUser(request), request.params.id) }),
  );

  await uploadScope(app, (scope) => {
    scope.post(
      '/products/:id/images',
      {
        config: {
          access: { can: 'products.write' },
          swaggerTransform: multipartBody(
            Type.Object({
              image: Type.String({ format: 'binary', description: 'JPEG, PNG or WebP (judged by its bytes), at most 10 MB' }),
              scene: Type.Optional(Scene),
            }),
          ),
        },
        schema: {
          tags,
          operationId: 'uploadProductImage',
          summary: 'Upload a product image',
          description: 'Upload a product image: multipart `image` (JPEG/PNG/WebP by content, ≤ 10 MB) and `scene`; the first image becomes primary',
          consumes: ['multipart/form-data'],
          params: IdParams,
          response: { 200: Ok(ImageView), ...uploadErrors, ...commonErrors },
        },
      },
      async (request) => {
        const auth = currentUser(request);
        const upload = await readUpload(request, 'image');
        if (!upload.file) throw fail('upload.file_missing', { field: 'image' });
        const scene = (upload.fields.scene ?? '').trim();
        if (scene.length > 100) throw fail('validation.too_long', { field: 'scene', max: 100 });
        return ok(await service.uploadProductImage(ctx, auth, request.params.id, upload.file, scene));
      },
    );
  });

  app.patch(
    '/products/:id/images/:image_id',
    {
      config: { access: { can: 'products.write' } },
      schema: { tags, operationId: 'updateProductImage', summary: 'Change an image\'s scene', description: 'Change the scene label of an image', params: ImageParams, body: Type.Object({ scene: Scene }), response: { 200: Ok(ImageView), ...commonErrors } },
    },
    async (request) =>
      ok(await service.changeImageScene(ctx, currentUser(request), request.params.id, request.params.image_id, request.body.scene.trim())),
  );

  app.post(
    '/products/:id/images/:image_id/primary',
    { config: { access: { can: 'products.write' } }, schema: { tags, operationId: 'setPrimaryProductImage', summary: 'Make an image the primary one', description: 'Make this image the primary image of its product (the one generation starts from)', params: ImageParams, response: { 200: Ok(ImageView), ...commonErrors } } },
    async (request) => ok(await service.makeImagePrimary(ctx, currentUser(request), request.params.id, request.params.image_id)),
  );

  app.delete(
    '/products/:id/images/:image_id',
    { config: { access: { can: 'products.write' } }, schema: { tags, operationId: 'deleteProductImage', summary: 'Delete a product image', description: 'Delete an image (deleting the primary promotes the oldest other one)', params: ImageParams, response: { 200: OkEmpty, ...commonErrors } } },
    async (request) => {
      await service.deleteProductImage(ctx, currentUser(request), request.params.id, request.params.image_id);
      return ok({});
    },
  );
};
