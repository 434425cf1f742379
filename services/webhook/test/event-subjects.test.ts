import { PUBLIC_EVENT_TYPES } from '@aff/contracts';
import { publicSubjectsByStream } from '../src/consumers/domain-events.consumer';

describe('the subjects the fan-out consumes', () => {
  it('are exactly the public event types, each on the stream that carries it', () => {
    const byStream = publicSubjectsByStream();
    const all = byStream.flatMap((entry) => entry.subjects).sort();
    expect(all).toEqual(PUBLIC_EVENT_TYPES.map((type) => `evt.${type}`).sort());
    expect(byStream.map((entry) => entry.stream).sort()).toEqual(
      ['EVT_AFFILIATE', 'EVT_COMMISSION', 'EVT_PAYOUT', 'EVT_TRACKING', 'EVT_WEBHOOK'].sort(),
    );
    expect(byStream.find((e) => e.stream === 'EVT_TRACKING')!.subjects).not.toContain(
      'evt.charge.attributed',
    );
  });
});
