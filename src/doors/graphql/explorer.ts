import path from 'node:path';
import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { Router } from 'express';

import type { ExplorerKind } from '../../foundation/config';

/*
 * What a browser gets on GET /graphql (GRAPHQL_EXPLORER): GraphiQL served by this server from npm
 * packages, so it works without internet (the default outside production); Apollo Sandbox, which
 * loads from Apollo's CDN; or nothing (the default in production).
 */

/** Where the explorer's scripts and styles are served (no key needed: they hold no data). */
export const EXPLORER_ASSETS_PATH = '/graphql/explorer';

const packageFile = (name: string, file: string) => path.join(path.dirname(require.resolve(`${name}/package.json`)), file);

const ASSETS: Record<string, string> = {
  'react.js': packageFile('react', 'umd/react.production.min.js'),
  'react-dom.js': packageFile('react-dom', 'umd/react-dom.production.min.js'),
  'graphiql.js': packageFile('graphiql', 'dist/index.umd.js'),
  'graphiql.css': packageFile('graphiql', 'dist/style.css'),
};

// The headers editor starts with the Authorization header to complete; nothing is persisted in the
// browser's storage (a key typed here stays in this tab).
const START = `(function () {
  var endpoint = window.location.origin + '/graphql';
  var sandbox = document.getElementById('sandbox');
  sandbox.href = 'https://studio.apollographql.com/sandbox/explorer?endpoint=' + encodeURIComponent(endpoint);
  var fetcher = GraphiQL.createFetcher({ url: endpoint });
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultHeaders: JSON.stringify({ Authorization: 'Bearer ' }, null, 2),
      defaultEditorToolsVisibility: 'headers',
      shouldPersistHeaders: false,
      defaultQuery: '# Put your key after "Bearer " in the headers below, then run (Ctrl-Enter).\\n{\\n  events(limit: 5) {\\n    total\\n    events { slug title status startDate }\\n  }\\n}\\n',
    }),
  );
})();
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Event Service GraphQL explorer</title>
  <link rel="stylesheet" href="${EXPLORER_ASSETS_PATH}/graphiql.css">
  <style>
    html, body { height: 100%; margin: 0; }
    body { display: flex; flex-direction: column; font-family: system-ui, sans-serif; }
    .explorer-bar { padding: 6px 12px; font-size: 13px; border-bottom: 1px solid #ddd; }
    #graphiql { flex: 1; min-height: 0; }
  </style>
</head>
<body>
  <div class="explorer-bar">GraphiQL, served by this server (works offline). Online? <a id="sandbox" href="https://studio.apollographql.com/sandbox/explorer" target="_blank" rel="noopener">Open this endpoint in Apollo Sandbox</a>.</div>
  <div id="graphiql">Loading GraphiQL…</div>
  <script src="${EXPLORER_ASSETS_PATH}/react.js"></script>
  <script src="${EXPLORER_ASSETS_PATH}/react-dom.js"></script>
  <script src="${EXPLORER_ASSETS_PATH}/graphiql.js"></script>
  <script src="${EXPLORER_ASSETS_PATH}/start.js"></script>
</body>
</html>
`;

const graphiqlLandingPage: ApolloServerPlugin = {
  async serverWillStart() {
    return { async renderLandingPage() { return { html: PAGE }; } };
  },
};

/** Apollo's landing-page plugin for the chosen explorer (always explicit: Apollo's default follows NODE_ENV). */
export function explorerPlugin(kind: ExplorerKind): ApolloServerPlugin {
  switch (kind) {
    case 'graphiql':
      return graphiqlLandingPage;
    case 'sandbox':
      return ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false });
    case 'off':
      return ApolloServerPluginLandingPageDisabled();
  }
}

/** GET /graphql/explorer/*: GraphiQL's and React's browser builds from node_modules, and the start script. */
export function createExplorerAssetsRouter(): Router {
  const router = Router();
  router.use((_req, res, next) => {
    res.locals.route = EXPLORER_ASSETS_PATH;
    next();
  });
  router.get('/start.js', (_req, res) => void res.type('application/javascript').send(START));
  for (const [name, file] of Object.entries(ASSETS)) {
    router.get(`/${name}`, (_req, res, next) => res.sendFile(file, { maxAge: '1h' }, (error) => error && next(error)));
  }
  return router;
}
