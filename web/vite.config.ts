import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { compression, defineAlgorithm } from 'vite-plugin-compression2';

/**
 * A first visit lands on the login page, whose chunk is lazy: without a hint the browser asks
 * for it only once the entry has run, one more round trip on a slow network. index.html lists
 * it and what it imports (beyond what the entry preloads already) as modulepreload links, so it
 * downloads alongside the entry. A signed-in visitor pays ~20 KB (brotli) for it, unused.
 */
function preloadLoginPage(): Plugin {
  return {
    name: 'preload-login-page',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const chunks = Object.values(ctx.bundle ?? {}).flatMap((c) => (c.type === 'chunk' ? [c] : []));
        const byFile = new Map(chunks.map((c) => [c.fileName, c]));
        const closure = (file: string, seen = new Set<string>()) => {
          if (seen.has(file)) return seen;
          seen.add(file);
          for (const dep of byFile.get(file)?.imports ?? []) closure(dep, seen);
          return seen;
        };
        const login = chunks.find((c) => c.facadeModuleId?.endsWith('/pages/auth/LoginPage.tsx'));
        const entry = chunks.find((c) => c.isEntry);
        if (!login || !entry) throw new Error('preload-login-page: no login page or entry chunk in the bundle');
        const preloaded = closure(entry.fileName);
        return [...closure(login.fileName)]
          .filter((file) => !preloaded.has(file))
          .map((file) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `/${file}` }, injectTo: 'head' as const }));
      },
    },
  };
}

export default defineConfig({
  plugins: [
    react(),
    preloadLoginPage(),
    // .br and .gz next to every text asset over 1 KB, at the highest levels (paid once per build):
    // the server (@fastify/static preCompressed) and nginx (gzip_static / brotli_static) send them
    // as they are, so no request compresses a script.
    compression({ algorithms: [defineAlgorithm('brotliCompress'), defineAlgorithm('gzip', { level: 9 })], threshold: 1024 }),
  ],
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
  // The manifest maps each route chunk to what it imports: bench/web sums what a page loads.
  build: { outDir: 'dist', emptyOutDir: true, manifest: true, chunkSizeWarningLimit: 600 },
});
