/**
 * The API reference: the OpenAPI document generated from the contract map at build time
 * (`dist/openapi.json`), and a readable page at `/docs` rendered by swagger-ui-dist, whose
 * assets are served from node_modules (no CDN).
 */
import fs from 'node:fs';
import path from 'node:path';
import express, { type Router } from 'express';
import { OPERATIONS, buildOpenApiDocument } from '@aff/contracts';

/** Written by the build next to the compiled gateway; generated in memory when run from sources. */
function loadDocument(): unknown {
  const built = path.resolve(__dirname, '../openapi.json');
  if (fs.existsSync(built)) return JSON.parse(fs.readFileSync(built, 'utf8'));
  return buildOpenApiDocument();
}

const assetsDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const DOCUMENT_PATH = OPERATIONS.getOpenApiDocument.http.path;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>Affiliate platform API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// A separate script (not inline), so a strict Content-Security-Policy can allow 'self' only.
const INIT = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(DOCUMENT_PATH)},
  dom_id: '#reference',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
});
`;

export function referenceRouter(): Router {
  const router = express.Router();
  const document = loadDocument();
  router.get(DOCUMENT_PATH, (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(document);
  });
  router.get('/docs', (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT);
  });
  router.use('/docs/assets', express.static(assetsDir, { index: false, maxAge: '1h' }));
  return router;
}
