/**
 * Import rules run by `npm test` (`npm run lint:imports`): imports only go down the layers
 *   transport (app, http, rest, graphql/apollo) → guards (auth, limits) → resolver → command
 *   → policy / repository → ORM
 * and never in a cycle. The admin CLI (src/cli) and the dashboard's endpoints (src/dashboard) are doors
 * too: like resolvers, they call commands and read through repositories.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
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
      name: 'modules-not-to-transport',
      severity: 'error',
      comment: 'Modules (resolvers, commands, policies, repositories, services) never reach the HTTP or REST door, the Apollo set-up, the app or the server.',
      from: { path: '^src/modules/' },
      to: { path: '^src/(http|rest|openapi|cli|bench|observability)/|^src/(app|server|service)\\.ts$|^src/graphql/(apollo|schema|print-schema)\\.ts$' },
    },
    {
      name: 'foundations-not-up',
      severity: 'error',
      comment: 'Errors, validation, ids and config are below everything: they import no module, door or guard.',
      from: { path: '^src/(errors|validation)/|^src/(ids|config|logger)\\.ts$' },
      to: { path: '^src/(modules|http|rest|graphql|auth|limits|db|cli|openapi|observability)/|^src/(app|server|service)\\.ts$' },
    },
    {
      name: 'guards-not-to-doors',
      severity: 'error',
      comment: 'Guards (auth, limits) decide who may call; they know nothing of the doors, resolvers or commands.',
      from: { path: '^src/(auth|limits)/' },
      to: { path: '^src/(http|rest|openapi)/|^src/(app|server|service)\\.ts$|^src/graphql/|\\.resolver\\.ts$|/commands/' },
    },
    {
      name: 'commands-not-up',
      severity: 'error',
      comment: 'A command is called by resolvers, the CLI and the dashboard; it never calls one of them, nor a service.',
      from: { path: '^src/modules/[^/]+/commands/' },
      to: { path: '\\.resolver\\.ts$|\\.service\\.ts$|^src/graphql/|^src/(cli|dashboard)/' },
    },
    {
      name: 'cli-and-dashboard-through-commands',
      severity: 'error',
      comment:
        'The admin CLI, the dashboard\'s endpoints, the development tenant and the benchmarks change data only through a command ' +
        '(src/modules/<module>/commands/) and read through repositories, read models and views; rules come from policies. ' +
        'The webhook runtime (the server key and destination rule webhook commands need) is built by the CLI like the server builds it.',
      from: { path: '^src/(cli|dashboard|db|bench)/' },
      to: {
        path: '^src/modules/',
        pathNot:
          '/commands/|\\.(repository|read-model|policy|view|entity|constants|types)\\.ts$|^src/modules/member/secret-token\\.ts$|^src/modules/organization/ip-allowlist\\.ts$|^src/modules/webhook/webhook-runtime\\.ts$',
      },
    },
    {
      name: 'no-orm-in-cli-and-dashboard',
      severity: 'error',
      comment: 'The CLI and the dashboard reach the database only through repositories (type imports of the EntityManager are fine).',
      from: { path: '^src/(cli|dashboard)/' },
      to: { path: '@mikro-orm', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'policies-are-pure',
      severity: 'error',
      comment: 'Policies are pure functions of loaded state: no ORM, no repository, no command, no resolver.',
      from: { path: '\\.policy\\.ts$' },
      to: { path: '@mikro-orm|\\.repository\\.ts$|/commands/|\\.resolver\\.ts$|\\.service\\.ts$|^src/graphql/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'repositories-not-up',
      severity: 'error',
      comment: 'Repositories are called by commands and read models; they call nothing above them.',
      from: { path: '\\.repository\\.ts$' },
      to: { path: '/commands/|\\.resolver\\.ts$|\\.service\\.ts$|^src/graphql/' },
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
      from: { path: '^src/', pathNot: '^src/dashboard/(frontend/|build-frontend\\.ts$|codegen\\.ts$)' },
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
