/**
 * Import rules run by `npm test` (`npm run lint:imports`): imports only go down the layers
 *   transport (app, http, rest, graphql/apollo) → guards (auth, limits) → resolver → command
 *   → policy / repository → ORM
 * and never in a cycle.
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
      comment: 'A command is called by resolvers; it never calls one, nor another module\'s resolver.',
      from: { path: '/commands/' },
      to: { path: '\\.resolver\\.ts$|^src/graphql/' },
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
      comment: 'Repositories are called by commands and services; they call nothing above them.',
      from: { path: '\\.repository\\.ts$' },
      to: { path: '/commands/|\\.resolver\\.ts$|\\.service\\.ts$|^src/graphql/' },
    },
    {
      name: 'orm-only-below-commands',
      severity: 'error',
      comment: 'Commands and resolvers reach the database only through repositories (type imports of the EntityManager are fine).',
      from: { path: '/commands/|\\.resolver\\.ts$' },
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
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-undeclared-packages',
      severity: 'error',
      comment: 'Every imported package is declared in package.json (dependencies for src/).',
      from: { path: '^src/' },
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
