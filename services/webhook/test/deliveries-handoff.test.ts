import type { ScheduleRepository } from '../src/data/schedule.repository';
import { DeliveriesHandoff } from '../src/consumers/deliveries-handoff';
import type { DueDelivery } from '../src/domain/ports';
import type { Offered } from '../src/outbound/dispatcher';

const due = (id: string): DueDelivery => ({ id, merchant_id: 'm', slot: 1, endpoint_id: 'e' });

function setUp(offer: (items: DueDelivery[]) => Offered) {
  const scheduled: string[] = [];
  const schedule = {
    set: async (item: DueDelivery) => {
      scheduled.push(item.id);
    },
  } as unknown as ScheduleRepository;
  return { scheduled, handoff: new DeliveriesHandoff({ offer }, schedule, 50) };
}

describe('handing fresh deliveries to the senders', () => {
  it('schedules nothing when every first attempt answers in time', async () => {
    const { scheduled, handoff } = setUp((items) => ({
      running: items.map((item) => ({ due: item, done: Promise.resolve() })),
      refused: [],
    }));
    await handoff.handOver([due('a'), due('b')]);
    expect(scheduled).toEqual([]);
  });

  it('schedules what a full lane turned away, and what is still sending after the wait', async () => {
    const never = new Promise<void>(() => undefined);
    const { scheduled, handoff } = setUp(([a, b, c]) => ({
      running: [
        { due: a!, done: Promise.resolve() },
        { due: b!, done: never },
      ],
      refused: [c!],
    }));
    const started = Date.now();
    await handoff.handOver([due('a'), due('b'), due('c')]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(scheduled.sort()).toEqual(['b', 'c']);
  });
});
