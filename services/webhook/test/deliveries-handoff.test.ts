import { DeliveriesHandoff } from '../src/consumers/deliveries-handoff';
import type { Claim } from '../src/domain/delivery-claims';
import type { DueDelivery } from '../src/domain/ports';
import type { Offered } from '../src/outbound/dispatcher';

const due = (id: string): DueDelivery => ({
  id,
  merchant_id: 'm',
  slot: 1,
  endpoint_id: 'e',
  held: { token: id } as unknown as Claim,
});

function setUp(offer: (items: DueDelivery[]) => Offered) {
  const parked: string[] = [];
  const claims = {
    park: async (claim: Claim, leased: boolean) => {
      parked.push(`${claim.token}:${leased ? 'leased' : 'due'}`);
    },
  };
  return { parked, handoff: new DeliveriesHandoff({ offer }, claims, 50) };
}

describe('handing fresh deliveries to the senders', () => {
  it('stores nothing itself when every first attempt answers (and stores) in time', async () => {
    const { parked, handoff } = setUp((items) => ({
      running: items.map((item) => ({ due: item, done: Promise.resolve(true) })),
      refused: [],
    }));
    await handoff.handOver([due('a'), due('b')]);
    expect(parked).toEqual([]);
  });

  it('stores what is still sending after the wait with its claim, and what a full lane turned away or failed due at once', async () => {
    const never = new Promise<boolean>(() => undefined);
    const { parked, handoff } = setUp(([a, b, c, d]) => ({
      running: [
        { due: a!, done: Promise.resolve(true) },
        { due: b!, done: never },
        { due: d!, done: Promise.resolve(false) },
      ],
      refused: [c!],
    }));
    const started = Date.now();
    await handoff.handOver([due('a'), due('b'), due('c'), due('d')]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(parked.sort()).toEqual(['b:leased', 'c:due', 'd:due']);
  });
});
