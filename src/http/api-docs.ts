import path from 'node:path';
import express, { Router } from 'express';

const SWAGGER_UI_DIRECTORY = path.dirname(require.resolve('swagger-ui-dist/package.json'));

export const OPENAPI_PATH = '/v1/openapi.json';

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Event Service API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/initializer.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise call an outside validator; the page works offline.
const INITIALIZER = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_PATH)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: false,
  tryItOutEnabled: false,
});
`;

// Everything the page needs comes from this server: a strict policy proves it and guards the page.
const CONTENT_SECURITY_POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'";

/**
 * GET /v1/openapi.json (the document built once at start) and the docs page at /docs, served from
 * the swagger-ui-dist package. Neither needs a key: they describe the API, they hold no data.
 */
export function createApiDocsRouter(document: object): Router {
  const json = JSON.stringify(document);
  const router = Router();
  router.get(OPENAPI_PATH, (_req, res) => {
    res.locals.route = OPENAPI_PATH;
    res.type('application/json').setHeader('Cache-Control', 'no-cache').send(json);
  });
  const docs = Router();
  docs.use((_req, res, next) => {
    res.locals.route = '/docs';
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    next();
  });
  docs.get('/', (_req, res) => void res.type('html').send(DOCS_PAGE));
  docs.get('/initializer.js', (_req, res) => void res.type('application/javascript').send(INITIALIZER));
  docs.use('/assets', express.static(SWAGGER_UI_DIRECTORY, { index: false, fallthrough: true, maxAge: '1h' }));
  router.use('/docs', docs);
  return router;
}
