/** The webhook service's stores over a fresh database of the real MongoDB-protocol server. */
import type { Connection } from 'mongoose';
import { connectMongo } from '@aff/mongo';
import { AttemptRepository } from '../../src/data/attempt.repository';
import { attemptModel } from '../../src/data/attempt.schema';
import { DeliveryRepository } from '../../src/data/delivery.repository';
import { deliveryModel } from '../../src/data/delivery.schema';
import { EndpointRepository } from '../../src/data/endpoint.repository';
import { endpointModel } from '../../src/data/endpoint.schema';
import { ScheduleRepository } from '../../src/data/schedule.repository';
import { scheduleModel } from '../../src/data/schedule.schema';
import { DeliveryClaims } from '../../src/domain/delivery-claims';

export async function openStores(name: string) {
  const mongo: Connection = await connectMongo(process.env.MONGO_URL!, `${name}_${Date.now()}`);
  const models = {
    delivery: deliveryModel(mongo),
    endpoint: endpointModel(mongo),
    attempt: attemptModel(mongo),
    schedule: scheduleModel(mongo),
  };
  await Promise.all(Object.values(models).map((model) => model.init()));
  const deliveries = new DeliveryRepository(models.delivery);
  const schedule = new ScheduleRepository(models.schedule);
  return {
    mongo,
    models,
    deliveries,
    schedule,
    endpoints: new EndpointRepository(models.endpoint, { relay: () => undefined }),
    attempts: new AttemptRepository(models.attempt),
    claims: new DeliveryClaims(deliveries, schedule),
    /** Every id on the schedule due by `at`. */
    scheduledIds: async (at = new Date(Date.now() + 3_600_000)) =>
      (await schedule.findDue(at, 10_000, [])).map((entry) => entry.id),
    close: async () => {
      await mongo.dropDatabase();
      await mongo.close();
    },
  };
}
export type Stores = Awaited<ReturnType<typeof openStores>>;
