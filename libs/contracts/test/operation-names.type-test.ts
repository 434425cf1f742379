/**
 * Type-level test, checked by `npm run build` (`tsc -p tsconfig.json` covers every test folder)
 * and never run by jest: an operation whose `name` is not its export key does not compile. Each
 * `@ts-expect-error` fails the build if the line below it ever compiles.
 */
import { defineOperation, keyedByName, OPERATIONS, type NamedByKey } from '../src';

const route = {
  owner: 'payout',
  auth: 'apiSecret',
  summary: 'A thing',
  http: { method: 'get', path: '/v1/things/:id' },
  response: { status: 200, description: 'The thing' },
  errors: [404],
} as const;

// Written the way every module of src/operations writes one.
const getThing = defineOperation({ name: 'getThing', ...route });
const misnamedThing = defineOperation({ name: 'getThings', ...route });

// A name that matches its key compiles.
keyedByName({ getThing });

// @ts-expect-error getThings is exported as getThing
keyedByName({ getThing: misnamedThing });

// As the index spreads a module's namespace: the mismatch is found among good entries.
const thingsModule = { getThing, listThings: misnamedThing };
// @ts-expect-error listThings is named getThings
keyedByName({ ...thingsModule });

// The contract map itself holds to it (the index already would not compile otherwise).
export const contractMap: NamedByKey<typeof OPERATIONS> = OPERATIONS;
