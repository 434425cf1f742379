/** The API reference through the real gateway: the OpenAPI document and its rendered page. */
import { buildOpenApiDocument } from '@aff/contracts';
import { gatewayUrl, request } from './support/http';
import { nonConformance } from './support/conformance';

it('serves the OpenAPI 3.1 document generated from the contract map, without credentials', async () => {
  const res = await request('GET', '/v1/openapi.json');
  expect(res.status).toBe(200);
  expect(res.body.openapi).toBe('3.1.0');
  // The build's artifact is the map's document, not a stale copy.
  expect(res.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  expect(res.body.components.securitySchemes.apiSecret).toMatchObject({
    type: 'http',
    scheme: 'basic',
  });
  const list = res.body.paths['/v1/affiliates'].get;
  expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(
    expect.arrayContaining(['page', 'limit', 'expand', 'expand[]']),
  );
  expect(list.responses['200'].content['application/json'].schema.properties).toHaveProperty(
    'pagination',
  );
  expect(list.responses['401'].content['application/json'].schema).toEqual({
    $ref: '#/components/schemas/Error',
  });
});

it('renders a reference page at /docs from assets the gateway serves itself', async () => {
  const page = await fetch(`${gatewayUrl()}/docs`);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).not.toMatch(/https?:\/\//);
  const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  expect(assets).toEqual(
    expect.arrayContaining(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js']),
  );
  for (const asset of assets) {
    const res = await fetch(`${gatewayUrl()}${asset}`);
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(10);
  }
  expect(await (await fetch(`${gatewayUrl()}/docs/init.js`)).text()).toContain('/v1/openapi.json');
});

it('the conformance check refuses an answer the document does not describe', () => {
  const url = `${gatewayUrl()}/v1/affiliates/3f1c2d4e-0000-4000-8000-000000000000`;
  expect(
    nonConformance('GET', url, 404, 'application/json', { error: 'Affiliate not found: x' }),
  ).toBeNull();
  expect(nonConformance('GET', url, 404, 'application/json', { message: 'nope' })).toMatch(
    /does not match the OpenAPI document/,
  );
  expect(nonConformance('GET', url, 418, 'application/json', {})).toMatch(/does not list/);
  expect(nonConformance('GET', url, 200, 'application/json', { id: 1 })).toMatch(/does not match/);
});
