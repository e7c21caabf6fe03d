// What each page of the built client downloads: its chunk plus every chunk it imports
// statically (transitively), from Vite's manifest, in bytes and gzipped bytes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

export function routeSizes(distDir) {
  const manifest = JSON.parse(readFileSync(path.join(distDir, '.vite', 'manifest.json'), 'utf8'));
  const sizeCache = new Map();
  const fileSize = (file) => {
    if (!sizeCache.has(file)) {
      const bytes = readFileSync(path.join(distDir, file));
      sizeCache.set(file, { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length });
    }
    return sizeCache.get(file);
  };
  const closure = (key, seen = new Set()) => {
    if (seen.has(key)) return seen;
    seen.add(key);
    for (const dep of manifest[key].imports ?? []) closure(dep, seen);
    return seen;
  };
  const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry);
  const entry = closure(entryKey);
  const measure = (keys) => {
    const files = [...keys].map((k) => manifest[k].file).filter((f) => f.endsWith('.js'));
    return files.reduce((acc, f) => ({ raw: acc.raw + fileSize(f).raw, gzip: acc.gzip + fileSize(f).gzip }), { raw: 0, gzip: 0 });
  };
  const routes = Object.keys(manifest)
    .filter((k) => manifest[k].isDynamicEntry && /\/pages\/|AppLayout/.test(k))
    .map((k) => {
      const own = closure(k);
      // A console page also needs the layout around it; the login page needs only the entry.
      const withLayout = /\/pages\/auth\//.test(k) || /AppLayout/.test(k) ? own : closure(Object.keys(manifest).find((m) => /AppLayout/.test(m)), new Set(own));
      const all = new Set([...entry, ...withLayout]);
      const extra = new Set([...all].filter((x) => !entry.has(x)));
      return { route: path.basename(k).replace(/\.tsx?$/, ''), total: measure(all), beyondEntry: measure(extra) };
    })
    .sort((a, b) => a.route.localeCompare(b.route));
  return { entry: measure(entry), routes };
}
