/**
 * Checks a gateway response against the OpenAPI document the build generated from the
 * contract map (the file the gateway serves). Every response the shared HTTP helper receives
 * for a documented route goes through here, so an answer the document does not describe
 * (an undocumented status, a missing or extra field, a wrong type) fails the test that got it.
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from '@aff/contracts';

type Json = Record<string, any>;

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  responses: Record<string, Json>;
}

let compiled: { routes: Route[]; validators: Map<string, ValidateFunction> } | undefined;

/** The served document: the build's artifact, or the same generator when run without a build. */
function loadDocument(): Json {
  const built = path.resolve(__dirname, '../../services/gateway/dist/openapi.json');
  if (fs.existsSync(built)) return JSON.parse(fs.readFileSync(built, 'utf8')) as Json;
  return buildOpenApiDocument() as Json;
}

function setUp() {
  if (compiled) return compiled;
  const document = loadDocument();
  const routes: Route[] = [];
  for (const [template, item] of Object.entries(document.paths as Record<string, Json>)) {
    const source = template
      .split('/')
      .map((part) =>
        /^\{.+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    for (const [method, operation] of Object.entries(item)) {
      routes.push({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${source}$`),
        responses: operation.responses as Record<string, Json>,
      });
    }
  }
  // Literal segments win over parameters (`/v1/payouts/generate` before `/v1/payouts/{id}`).
  const key = (t: string) => t.replace(/\{[^}]+\}/g, '\uffff');
  routes.sort((a, b) => (key(a.template) < key(b.template) ? -1 : 1));
  compiled = { routes, validators: new Map() };
  (compiled as Json).document = document;
  return compiled;
}

function validatorFor(route: Route, status: string, schema: Json): ValidateFunction {
  const state = setUp();
  const id = `${route.method} ${route.template} ${status}`;
  let validate = state.validators.get(id);
  if (!validate) {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const components = ((state as Json).document.components ?? {}) as Json;
    // Local `#/components/...` references resolve inside a wrapper carrying the components.
    validate = ajv.compile({ ...schema, components });
    state.validators.set(id, validate);
  }
  return validate;
}

/** Null when the response conforms (or the route is not part of the document), else why not. */
export function nonConformance(
  method: string,
  url: string,
  status: number,
  contentType: string | null,
  body: unknown,
): string | null {
  const pathname = new URL(url).pathname;
  const route = setUp().routes.find(
    (candidate) => candidate.method === method.toUpperCase() && candidate.pattern.test(pathname),
  );
  if (!route) return null;
  const where = `${method.toUpperCase()} ${pathname} (${route.template}) answered ${status}`;
  const documented = route.responses[String(status)];
  if (!documented) {
    return `${where}, a status the OpenAPI document does not list (${Object.keys(route.responses).join(', ')})`;
  }
  const content = (documented.content ?? {}) as Record<string, Json>;
  const json = content['application/json'];
  if (!json) return null;
  if (!contentType?.includes('application/json')) {
    return `${where} with content-type ${contentType ?? 'none'}, documented as application/json`;
  }
  const validate = validatorFor(route, String(status), json.schema as Json);
  if (validate(body)) return null;
  const problems = (validate.errors ?? [])
    .slice(0, 5)
    .map(
      (e) =>
        `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
    )
    .join('; ');
  return `${where} with a body that does not match the OpenAPI document: ${problems}`;
}
