#!/usr/bin/env node
/*
 * Turns Kubernetes' OpenAPI v2 document (api/openapi-spec/swagger.json of the k8s.io/kubernetes
 * Go module) into one strict, standalone JSON schema per resource kind, named the way
 * kubeconform looks them up: <kind>[-<first part of group>]-<version>.json, all lower case
 * (deployment-apps-v1.json, service-v1.json, networkpolicy-networking-v1.json).
 *
 *   node deploy/ci/openapi2jsonschema.cjs <swagger.json> <output dir>
 *
 * Why a converter of our own: the usual pre-built schema sets are downloaded from GitHub, which
 * this project's machines cannot reach; the Go module proxy serves the Kubernetes sources.
 *
 * What "strict" means here, like openapi2jsonschema's -strict sets:
 *  - every object schema that lists its properties gets additionalProperties: false, so a
 *    misspelt or misplaced field fails instead of being silently dropped by the API server;
 *  - apiVersion and kind must be the ones the file is for;
 *  - no null where the API expects a value (a `key:` left empty by a template fails).
 * Quantities and int-or-string fields accept what the API server accepts: a string or a number.
 * Each file carries the definitions it needs under $defs (recursive types stay $refs).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const REF_PREFIX = '#/definitions/';

/** Copies a schema node, dropping prose and vendor extensions and making objects closed. */
function strictCopy(node) {
  if (Array.isArray(node)) return node.map(strictCopy);
  if (node === null || typeof node !== 'object') return node;
  if (node.format === 'int-or-string') return { oneOf: [{ type: 'string' }, { type: 'integer' }] };
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'description' || key.startsWith('x-')) continue;
    if (key === '$ref') {
      out.$ref = `#/$defs/${String(value).slice(REF_PREFIX.length)}`;
    } else if (key === 'properties') {
      // Property names are data here, not keywords: copy each property's schema, keep the names.
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, schema]) => [name, strictCopy(schema)]),
      );
    } else {
      out[key] = strictCopy(value);
    }
  }
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

function definitionSchema(definitions, name) {
  if (name === QUANTITY) return { oneOf: [{ type: 'string' }, { type: 'number' }] };
  if (name === INT_OR_STRING) return { oneOf: [{ type: 'string' }, { type: 'integer' }] };
  const definition = definitions[name];
  if (!definition) throw new Error(`swagger.json has no definition ${name}`);
  return strictCopy(definition);
}

/** Names of the definitions a schema node refers to directly. */
function directRefs(node, into = new Set()) {
  if (Array.isArray(node)) node.forEach((item) => directRefs(item, into));
  else if (node !== null && typeof node === 'object') {
    if (typeof node.$ref === 'string') into.add(node.$ref.slice(REF_PREFIX.length));
    Object.values(node).forEach((value) => directRefs(value, into));
  }
  return into;
}

/** Names of every definition reachable from `root` through $refs (root included). */
function closure(definitions, root) {
  const seen = new Set();
  const pending = [root];
  while (pending.length > 0) {
    const name = pending.pop();
    if (seen.has(name)) continue;
    seen.add(name);
    pending.push(...directRefs(definitions[name]));
  }
  return seen;
}

/** Whether a definition can reach itself through its $refs. */
function refersToItself(definitions, name) {
  return [...directRefs(definitions[name])].some((dep) => closure(definitions, dep).has(name));
}

function fileName({ group, version, kind }) {
  const groupPart = group ? `-${group.split('.')[0]}` : '';
  return `${kind}${groupPart}-${version}.json`.toLowerCase();
}

function main() {
  const [swaggerPath, outDir] = process.argv.slice(2);
  if (!swaggerPath || !outDir) {
    console.error('usage: openapi2jsonschema.cjs <swagger.json> <output dir>');
    process.exit(2);
  }
  const { definitions } = JSON.parse(fs.readFileSync(swaggerPath, 'utf8'));
  fs.mkdirSync(outDir, { recursive: true });
  const written = new Map(); // file name -> definition name, to catch two kinds sharing a name
  for (const [name, definition] of Object.entries(definitions)) {
    const gvks = definition['x-kubernetes-group-version-kind'];
    if (!Array.isArray(gvks)) continue;
    // Options and event types are listed under many groups; only top-level objects have kind.
    if (!definition.properties || !definition.properties.kind) continue;
    const $defs = {};
    for (const dep of [...closure(definitions, name)].sort()) {
      // A kind that can contain itself (none today, but cheap to allow) refers to its own entry.
      if (dep !== name || refersToItself(definitions, name))
        $defs[dep] = definitionSchema(definitions, dep);
    }
    for (const gvk of gvks) {
      const file = fileName(gvk);
      if (written.has(file) && written.get(file) !== name) {
        throw new Error(`${file}: both ${written.get(file)} and ${name} map to it`);
      }
      written.set(file, name);
      const schema = definitionSchema(definitions, name);
      schema.properties.apiVersion = {
        type: 'string',
        enum: [gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version],
      };
      schema.properties.kind = { type: 'string', enum: [gvk.kind] };
      const document = {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        ...schema,
        $defs,
      };
      fs.writeFileSync(path.join(outDir, file), JSON.stringify(document));
    }
  }
  console.log(`openapi2jsonschema: ${written.size} schemas in ${outDir}`);
}

main();
