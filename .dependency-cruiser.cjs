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
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    // The ladder: one rule per rung, naming the rungs above it that it may not reach.
    {
      name: 'ladder-foundation',
      severity: 'error',
      comment: 'The foundation rung (src/foundation/) imports nothing above it: not platform, modules, schema, doors, http or server.',
      from: { path: '^src/foundation/' },
      to: { path: '^src/(platform|modules|schema|doors|http)/|^src/[^/]+\\.ts$' },
    },
    {
      name: 'ladder-platform',
      severity: 'error',
      comment: 'The platform rung (src/platform/) imports only foundation: not modules, schema, doors, http or server.',
      from: { path: '^src/platform/' },
      to: { path: '^src/(modules|schema|doors|http)/|^src/[^/]+\\.ts$' },
    },
    {
      name: 'ladder-modules',
      severity: 'error',
      comment: 'The modules rung (src/modules/) imports only platform and foundation: not schema, doors, http or server.',
      from: { path: '^src/modules/' },
      to: { path: '^src/(schema|doors|http)/|^src/[^/]+\\.ts$' },
    },
    {
      name: 'ladder-schema',
      severity: 'error',
      comment: 'The schema rung (src/schema/) imports only modules, platform and foundation: not doors, http or server.',
      from: { path: '^src/schema/' },
      to: { path: '^src/(doors|http)/|^src/[^/]+\\.ts$' },
    },
    {
      name: 'ladder-doors',
      severity: 'error',
      comment: 'The doors rung (src/doors/) imports only schema, modules, platform and foundation: not http or server.',
      from: { path: '^src/doors/' },
      to: { path: '^src/http/|^src/[^/]+\\.ts$' },
    },
    {
      name: 'ladder-http',
      severity: 'error',
      comment: 'The http rung (src/http/) imports only doors and the rungs below: not the server files (src/*.ts).',
      from: { path: '^src/http/' },
      to: { path: '^src/[^/]+\\.ts$' },
    },
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
      from: { path: '^src/(?!(foundation|platform|modules|schema|doors|http)/)[^/]+/' },
      to: {},
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A cycle makes the load order matter and the layers meaningless. Only a type-only link may close one (an entity naming the other side of a relation).',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
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
    exclude: { path: '^dist/' },
  },
};
