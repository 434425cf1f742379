/**
 * The endpoints' store over the real MongoDB-protocol server: a second endpoint with the same
 * id is the domain's `DuplicateError` (the store maps the driver's duplicate key), not a driver
 * error the use cases would have to recognise.
 */
import type { Connection } from 'mongoose';
import { connectMongo } from '@aff/mongo';
import { EndpointRepository } from '../src/data/endpoint.repository';
import { endpointModel } from '../src/data/endpoint.schema';
import { DuplicateError } from '../src/domain/ports';
import { anEndpoint } from './support/endpoint-fixture';

let mongo: Connection;
let endpoints: EndpointRepository;

beforeAll(async () => {
  mongo = await connectMongo(process.env.MONGO_URL!, `webhook_endpoint_repo_test_${Date.now()}`);
  const model = endpointModel(mongo);
  await model.init();
  endpoints = new EndpointRepository(model, { relay: () => undefined });
});
afterAll(async () => {
  await mongo.dropDatabase();
  await mongo.close();
});

it('answers DuplicateError for an id that exists, and keeps the first endpoint', async () => {
  const record = anEndpoint();
  await endpoints.insert(record);
  await expect(
    endpoints.insert({ ...record, url: 'https://example.com/other' }),
  ).rejects.toBeInstanceOf(DuplicateError);
  expect(await endpoints.findById(record.merchant_id, record._id)).toMatchObject({
    url: 'https://example.com/hook',
  });
});
