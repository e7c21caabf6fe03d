import type { AppContext } from '../../context.js';
import type { AuthUser } from '../../http/auth.js';
import { benchmarksForExport } from '../benchmarks/service.js';
import * as repo from './repository.js';

/**
 * Everything the workspace configured about its products, as one JSON document: product fields,
 * image metadata (no file bytes, no links: links expire) and benchmarks with their analyses.
 */
export async function exportProducts(ctx: AppContext, auth: AuthUser) {
  const products = await repo.allProducts(ctx.db, auth.workspaceId);
  const ids = products.map((p) => p.id);
  const [attached, images, benchmarks] = await Promise.all([
    repo.attachedBannedWords(ctx.db, auth.workspaceId, ids),
    repo.listImagesOfProducts(ctx.db, auth.workspaceId, ids),
    benchmarksForExport(ctx, auth.workspaceId, ids),
  ]);
  return {
    format: 'cps-products-export/1' as const,
    exported_at: ctx.clock.now().toISOString(),
    workspace_id: auth.workspaceId,
    products: products.map((p) => ({
      ...p,
      banned_word_ids: attached.get(p.id) ?? [],
      images: images
        .filter((i) => i.product_id === p.id)
        .map((i) => ({ id: i.id, scene: i.scene, is_primary: i.is_primary, mime: i.mime, width: i.width, height: i.height, created_at: i.created_at })),
      benchmarks: benchmarks.filter((b) => b.product_id === p.id),
    })),
  };
}
