/**
 * Import rules run by `npm test` (`npm run lint:imports`).
 *
 * The folders of src/ form a ladder; each rung imports only the rungs below it (README, "Architecture"):
 *
 *   server    src/*.ts            the process: start-up, the service's wiring, the server's database
 *   http      src/http/           the request pipeline: every request's steps, in one order
 *   doors     src/doors/          REST (route table, OpenAPI), GraphQL (Apollo, the lane), dashboard, CLI
 *   schema    src/schema/         the modules put together: the GraphQL schema, the entities, the migrations
 *   modules   src/modules/        the domain: entities, policies, repositories, commands, resolvers
 *   platform  src/platform/       database, crypto, outbox, auth, limits, idempotency, GraphQL kit, metrics
 *   foundation src/foundation/    errors, validation, configuration, ids, logging
 *
 * A rung's own folders may import each other as long as no cycle forms (no-circular, below), and inside
 * a rung the older rules of thumb still hold: resolver → command → policy / repository → ORM.
 */
/** The rungs of src/, bottom to top; the server rung is the files directly in src/ (src/*.ts). */
const RUNGS = ['foundation', 'platform', 'modules', 'schema', 'doors', 'http'];
const SERVER = '^src/[^/]+\\.ts$';

/** One rule per rung: it may not import any rung above it (the rule's name says which rung broke). */
const ladder = RUNGS.map((rung, index) => {
  const above = RUNGS.slice(index + 1);
  const below = RUNGS.slice(0, index);
  return {
    name: `ladder-${rung}`,
    severity: 'error',
    comment:
      `The ${rung} rung (src/${rung}/) imports only ${below.length > 0 ? below.join(', ') : 'packages'}` +
      ` and itself: not ${[...above, 'server (src/*.ts)'].join(', ')}.`,
    from: { path: `^src/${rung}/` },
    to: { path: above.length > 0 ? `^src/(${above.join('|')})/|${SERVER}` : SERVER },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...ladder,
    {
      name: 'bench-outside-the-product',
      severity: 'error',
      comment: 'The benchmarks (bench/) drive the compiled server and the admin CLI as a user would; they import nothing from src/.',
      from: { path: '^bench/' },
      to: { path: '^src/' },
    },
    {
      name: 'ladder-unknown-folder',
      severity: 'error',
      comment: 'Every folder of src/ is a rung of the ladder: foundation, platform, modules, schema, doors or http.',
      from: { path: `^src/(?!(${RUNGS.join('|')})/)[^/]+/` },
      to: {},
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No file reaches itself through its imports, type-only imports included: a cycle makes the load order matter ' +
        'and the two files one unit that reads as two. Break it: move what both need into a file below them ' +
        '(tracing-runtime.ts), let the lower file declare the shape it uses (StatementRunner in traced-statements.ts), ' +
        'or name the other side of an entity relation by its entity name and type it by its id (ticket-type.entity.ts).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-not-to-test',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^test/' },
    },
    {
      name: 'guards-not-to-graphql',
      severity: 'error',
      comment: 'Guards (platform/auth, platform/limits) decide who may call; they know nothing of GraphQL.',
      from: { path: '^src/platform/(auth|limits)/' },
      to: { path: '^src/platform/graphql/' },
    },
    {
      name: 'commands-not-up',
      severity: 'error',
      comment: 'A command is called by resolvers, the CLI and the dashboard; it never calls one of them, nor a service.',
      from: { path: '^src/modules/[^/]+/commands/' },
      to: { path: '\\.resolver\\.ts$|\\.service\\.ts$|^src/platform/graphql/' },
    },
    {
      name: 'cli-and-dashboard-through-commands',
      severity: 'error',
      comment:
        'The admin CLI, the dashboard\'s endpoints and the development tenant change data only through a command ' +
        '(src/modules/<module>/commands/) and read through repositories, read models and views; rules come from policies.',
      from: { path: '^src/doors/(cli|dashboard)/|^src/development-tenant\\.ts$' },
      to: {
        path: '^src/modules/',
        pathNot:
          '/commands/|\\.(repository|read-model|policy|view|entity|constants|types)\\.ts$|^src/modules/member/secret-token\\.ts$|^src/modules/organization/ip-allowlist\\.ts$',
      },
    },
    {
      name: 'no-orm-in-cli-and-dashboard',
      severity: 'error',
      comment: 'The CLI and the dashboard reach the database only through repositories (type imports of the EntityManager are fine).',
      from: { path: '^src/doors/(cli|dashboard)/' },
      to: { path: '@mikro-orm', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'policies-are-pure',
      severity: 'error',
      comment: 'Policies are pure functions of loaded state: no ORM, no repository, no command, no resolver.',
      from: { path: '\\.policy\\.ts$' },
      to: { path: '@mikro-orm|\\.repository\\.ts$|/commands/|\\.resolver\\.ts$|\\.service\\.ts$|^src/platform/graphql/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'repositories-not-up',
      severity: 'error',
      comment: 'Repositories are called by commands and read models; they call nothing above them.',
      from: { path: '\\.repository\\.ts$' },
      to: { path: '/commands/|\\.resolver\\.ts$|\\.service\\.ts$|^src/platform/graphql/' },
    },
    {
      name: 'orm-only-below-commands',
      severity: 'error',
      comment: 'Commands, read models and resolvers reach the database only through repositories (type imports of the EntityManager are fine).',
      from: { path: '/commands/|\\.resolver\\.ts$|\\.read-model\\.ts$' },
      to: { path: '@mikro-orm', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-other-modules-entities-in-rules',
      severity: 'error',
      comment: "A module's commands and policies go through another module's repository or policy, never its entity.",
      from: { path: '^src/modules/([^/]+)/(commands/|[^/]+\\.policy\\.ts$)' },
      to: { path: '^src/modules/([^/]+)/[^/]+\\.entity\\.ts$', pathNot: '^src/modules/$1/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      // The frontend example's generated types import a types-only package (no JavaScript to resolve).
      from: { pathNot: '^examples/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'no-undeclared-packages',
      severity: 'error',
      comment:
        'Every imported package is declared in package.json (dependencies for src/). The dashboard\'s build-time code ' +
        '(the pages esbuild bundles, the bundler and codegen scripts npm run build runs) uses dev dependencies.',
      from: { path: '^src/', pathNot: '^src/doors/dashboard/(frontend/|build-frontend\\.ts$|codegen\\.ts$)' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown', 'npm-dev'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Packages' subpath exports (`@opentelemetry/otlp-exporter-base/node-http`), resolved as Node resolves them.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['require', 'node', 'default'] },
    exclude: { path: '^dist/' },
  },
};
