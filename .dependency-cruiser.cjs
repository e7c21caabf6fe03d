/**
 * The walls of the server and the web client (docs/architecture.md, "Layer rules"), checked by
 * `npm run lint:walls` in CI. Type-only imports count for every rule but the cycle rule: a
 * layer may not even name another layer's types where it may not call it.
 */
const SRC = '^server/src/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-runtime-cycles',
      comment: 'A cycle of imports that exist at run time (type-only imports vanish when compiled).',
      severity: 'error',
      from: { path: '^(server|web)/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'content-kernel-is-pure',
      comment: 'server/src/content is the pure content kernel: it imports only itself, typebox and OpenCC\'s character table (data), nothing with I/O.',
      severity: 'error',
      from: { path: `${SRC}content/` },
      to: { pathNot: [`${SRC}content/`, '^typebox$', '^typebox/', '^opencc-js/dict/TSCharacters$', 'node_modules/opencc-js/dist/esm-lib/dict/TSCharacters\\.js$'] },
    },
    {
      name: 'policy-is-pure',
      comment: 'server/src/policy decides who may do what from the actor and the record it is handed: no I/O, so routes, services and views ask it alike.',
      severity: 'error',
      from: { path: `${SRC}policy/` },
      to: { pathNot: [`${SRC}policy/`, `${SRC}db/schema\\.ts$`] },
    },
    {
      name: 'providers-see-only-the-kernel',
      comment: 'Provider adapters import the content kernel, their own helpers and the image/URL-guard utilities: no module, database, job, event or ops code.',
      severity: 'error',
      from: { path: `${SRC}providers/` },
      to: { path: SRC, pathNot: [`${SRC}providers/`, `${SRC}content/`, `${SRC}images/`, `${SRC}security/ssrf\\.ts$`, `${SRC}config\\.ts$`] },
    },
    {
      name: 'infrastructure-below-modules',
      comment: 'The layers under the resource modules (db, storage, images, security, policy, events, jobs, http, ops) never import a module: modules plug into them.',
      severity: 'error',
      from: { path: `${SRC}(db|storage|images|security|policy|events|jobs|http|ops)/` },
      to: { path: `${SRC}modules/` },
    },
    {
      name: 'modules-meet-through-services',
      comment: "A module reaches another module only through its service.ts (rules) or views.ts (shapes): never its repository, pipeline or routes.",
      severity: 'error',
      from: { path: `${SRC}modules/([^/]+)/` },
      to: { path: `${SRC}modules/[^/]+/`, pathNot: [`${SRC}modules/$1/`, `${SRC}modules/[^/]+/(service|views)\\.ts$`] },
    },
    {
      name: 'nothing-imports-the-composition-root',
      comment: 'app.ts, runtime.ts, main.ts, cli.ts and job-thread.ts wire the process (and its job thread) together; nothing below them imports them.',
      severity: 'error',
      from: { path: SRC, pathNot: `${SRC}(app|runtime|main|cli|bootstrap|job-thread)\\.ts$` },
      to: { path: `${SRC}(app|runtime|main|cli|job-thread)\\.ts$` },
    },
    {
      name: 'web-speaks-the-contract-only',
      comment: 'The web client talks to the server over HTTP only: no import of server code.',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^server/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)node_modules/', '(^|/)dist/', '\\.d\\.ts$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.walls.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs'] },
  },
};
