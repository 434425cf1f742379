/**
 * The bench's measured reasons under a missed target (missed-bounds.ts, bench-verdict.ts): the
 * arithmetic (ceiling, budget, cut, which processes exceed it) and its printed form, on the
 * figures of bench run 37 (/work/notes/lead-bench-37.log), worked out by hand below.
 */
import { benchTargets, check, CPU, formatTargets } from '../src/bench/bench-verdict';
import type { CpuAccount } from '../src/bench/cpu-account';
import type { Measurement } from '../src/bench/measure';
import {
  cpuBound,
  explainDocumentCount,
  explainLatency,
  explainThroughput,
} from '../src/bench/missed-bounds';
import type { WriteAccount } from '../src/bench/write-stats';

function account(rows: Record<string, number>, busy?: number): CpuAccount {
  const list = Object.entries(rows).map(([process, msPerEvent]) => ({ process, msPerEvent }));
  return {
    events: 1000,
    seconds: 10,
    rows: list,
    totalMsPerEvent: list.reduce((sum, row) => sum + row.msPerEvent, 0),
    cores: 2,
    machineBusyShare: busy,
    loadGeneratorMsPerEvent: 0.3,
  };
}

// Run 37: 2.34 ms per visit.
const visitCpu = account(
  {
    tracking: 0.81,
    database: 0.59,
    gateway: 0.45,
    nats: 0.2,
    affiliate: 0.16,
    webhook: 0.09,
    payout: 0.02,
    web: 0.01,
    commission: 0.01,
  },
  0.97,
);
const skeletonCpu = account({
  'skeleton gateway': 0.15,
  database: 0.1,
  'skeleton service': 0.1,
  nats: 0.05,
});
const chargeCpu = account({
  database: 2.86,
  commission: 2.08,
  tracking: 1.64,
  affiliate: 1.57,
  payout: 0.66,
  nats: 0.61,
  webhook: 0.3,
  gateway: 0.05,
  web: 0.03,
});
const deliveryCpu = account({
  webhook: 0.96,
  database: 0.36,
  nats: 0.06,
  payout: 0.01,
  web: 0.01,
  commission: 0.01,
  tracking: 0.01,
});
const chargeWrites: WriteAccount = {
  events: 2000,
  rows: [
    { key: 'commission.sales update', perEvent: 2 },
    { key: 'tracking.referrals update', perEvent: 2 },
    { key: 'affiliate.sent_mails update', perEvent: 1 },
    { key: 'commission.sales insert', perEvent: 1 },
    { key: 'payout.commissions update', perEvent: 1 },
    { key: 'commission.merchant_commission_stats update', perEvent: 0.33 },
  ],
  totalPerEvent: 12.56,
};

/** A throughput target missed against run 37's raw inserts (8653/s). */
const missedOnRawInserts = (
  miss: Omit<Parameters<typeof explainThroughput>[0], 'baselineName' | 'baselinePerSecond'>,
) => explainThroughput({ baselineName: 'raw inserts', baselinePerSecond: 8653, ...miss });

/** The charge path's latency at 20 charges/s on run 37's charge CPU. */
const chargeLatency = (
  fields: Omit<Parameters<typeof explainLatency>[0], 'event' | 'ratePerSecond' | 'cpu'>,
) => explainLatency({ event: 'charge', ratePerSecond: 20, cpu: chargeCpu, ...fields });

describe('cpuBound', () => {
  it('turns CPU per event into a ceiling, and a target ratio into a CPU budget', () => {
    const bound = cpuBound(visitCpu, 8653, 0.25);
    expect(bound.msPerEvent).toBeCloseTo(2.34, 9);
    expect(bound.ceilingPerSecond).toBeCloseTo(2000 / 2.34, 6); // 854.7/s
    expect(bound.ceilingRatio).toBeCloseTo(2000 / 2.34 / 8653, 9); // 0.0988
    expect(bound.targetPerSecond).toBeCloseTo(2163.25, 9);
    expect(bound.budgetMsPerEvent).toBeCloseTo(2000 / 2163.25, 9); // 0.9245 ms
    expect(bound.cutMsPerEvent).toBeCloseTo(2.34 - 2000 / 2163.25, 9); // 1.4155 ms
    // No process alone is over 0.92 ms; tracking + database (1.40) fall short of the cut.
    expect(bound.aloneOver).toEqual([]);
    expect(bound.fewestForCut.map((r) => r.process)).toEqual(['tracking', 'database', 'gateway']);
  });

  it('names a process whose own CPU is over the whole budget, and asks no cut when it fits', () => {
    const over = cpuBound(deliveryCpu, 8653, 0.3);
    expect(over.budgetMsPerEvent).toBeCloseTo(2000 / 2595.9, 9); // 0.7704 ms
    expect(over.aloneOver.map((r) => r.process)).toEqual(['webhook']);
    const fits = cpuBound(deliveryCpu, 8653, 0.1);
    expect(fits.cutMsPerEvent).toBe(0);
    expect(fits.fewestForCut).toEqual([]);
  });
});

describe('explainThroughput', () => {
  it('prints the visit bound: ceiling, budget, processes, and the skeleton floor', () => {
    const lines = missedOnRawInserts({
      event: 'visit',
      measuredPerSecond: 765,
      targetRatio: 0.25,
      cpu: visitCpu,
      floor: { name: 'visit skeleton', perSecond: 4536, cpu: skeletonCpu },
    });
    expect(lines).toEqual([
      'why: 2.34 ms CPU per visit in all processes (tracking 0.81, database 0.59, gateway 0.45, nats 0.20, affiliate 0.16, webhook 0.09, payout 0.02, web 0.01, commission 0.01) on 2 cores: a ceiling of 855/s = 0.099 × raw inserts; measured 765/s, 90 % of that ceiling, cores 97 % busy in the window',
      'needs: 0.25 × = 2163/s, so at most 0.92 ms CPU per visit in all processes: 1.42 ms (60 %) less than now',
      'no process alone is over it; the cut is more than the 2 largest take: it needs at least tracking + database + gateway (1.85 ms together)',
      'mandated hops alone (visit skeleton): 4536/s = 0.524 × raw inserts, 0.40 ms CPU per visit (skeleton gateway 0.15, database 0.10, skeleton service 0.10, nats 0.05)',
      "this path's own CPU beyond those hops: 1.94 ms per visit; the target leaves 0.52 ms for it (3.7 × too much)",
    ]);
  });

  it('prints the charge bound with documents and the database per document', () => {
    const lines = missedOnRawInserts({
      event: 'charge',
      measuredPerSecond: 192.8,
      targetRatio: 0.05,
      cpu: { ...chargeCpu, machineBusyShare: undefined },
      writes: chargeWrites,
      documentsTarget: 8,
    });
    expect(lines[0]).toContain('9.80 ms CPU per charge');
    expect(lines[0]).toContain('a ceiling of 204/s = 0.024 × raw inserts; measured 193/s, 94 %');
    expect(lines[1]).toBe(
      'needs: 0.05 × = 433/s, so at most 4.62 ms CPU per charge in all processes: 5.18 ms (53 %) less than now',
    );
    // database 2.86 + commission 2.08 = 4.94 falls short of the 5.18 ms cut: three are needed.
    expect(lines[2]).toContain('it needs at least database + commission + tracking (6.58 ms');
    expect(lines[3]).toBe(
      '12.56 documents written per charge; database 2.86 ms = 0.228 ms per document; the other processes 6.94 ms, over the whole 4.62 ms budget by themselves; at 8 documents the database would take 1.82 ms, 8.76 ms in all',
    );
  });

  it('names the webhook process as over the budget of a delivery on its own', () => {
    const lines = missedOnRawInserts({
      event: 'delivery',
      measuredPerSecond: 1157.4,
      targetRatio: 0.3,
      cpu: deliveryCpu,
      writes: { events: 2000, rows: [], totalPerEvent: 1 },
    });
    expect(lines[2]).toBe('over that whole budget on its own: webhook 0.96');
    expect(lines[3]).toContain('the other processes 1.06 ms, over the whole 0.77 ms budget');
  });

  it('says so when there is no CPU account', () => {
    const lines = missedOnRawInserts({
      event: 'visit',
      measuredPerSecond: 765,
      targetRatio: 0.25,
    });
    expect(lines).toEqual(['why: no CPU account for this window (no /proc)']);
  });
});

describe('other targets', () => {
  it('latency: the share of the cores the path takes at its steady rate', () => {
    expect(chargeLatency({ p50Ms: 35 })).toEqual([
      'why: at 20 charges/s the path takes 20 × 9.80 ms = 196 ms of CPU a second, 10 % of 2 cores: the CPU does not bound the tail (p50 35 ms); it is time waited between the steps (batching windows, acks)',
    ]);
  });

  it('latency on a machine busy with other work: says the tail may be that queueing', () => {
    const [line] = chargeLatency({
      p50Ms: 88,
      machineBusyShare: 0.97,
    });
    expect(line).toBe(
      "why: at 20 charges/s the path takes 20 × 9.80 ms = 196 ms of CPU a second, 10 % of 2 cores, but the cores were 97 % busy while it was measured (the probe's polling, the fan-out, anything else on the machine): queueing is part of the tail (p50 88 ms)",
    );
    // A quiet machine: the same figures say waiting between the steps.
    expect(chargeLatency({ p50Ms: 35, machineBusyShare: 0.3 })[0]).toContain(
      'the CPU does not bound the tail (p50 35 ms)',
    );
  });

  it('documents: how far over, by service and by step', () => {
    const [line] = explainDocumentCount(chargeWrites, 8);
    expect(line).toBe(
      'why: 12.56 documents, 4.56 over; by service commission 3.33, tracking 2.00, affiliate 1.00, payout 1.00; every step writing one or more per event: commission.sales update 2.00, tracking.referrals update 2.00, affiliate.sent_mails update 1.00, commission.sales insert 1.00, payout.commissions update 1.00',
    );
  });
});

describe('benchTargets and formatTargets', () => {
  const m = (requestsPerSecond: number): Measurement => ({
    name: 'x',
    requestsPerSecond,
    p50Ms: 1,
    p99Ms: 2,
    non2xx: 0,
    errors: 0,
  });

  it('prints the reason under a missed target only, indented beneath it', () => {
    const targets = benchTargets({
      rawInsertsPerSecond: 8653,
      cpu: { [CPU.visits]: visitCpu, [CPU.hooked]: visitCpu, [CPU.skeleton]: skeletonCpu },
      visits: { visits: m(765), hooked: m(2000), skeleton: m(4536) },
    });
    expect(targets.map((t) => [t.name, t.met])).toEqual([
      ['visits / raw inserts', false],
      ['visits with a subscriber / raw inserts', true],
    ]);
    expect(targets[1]!.why).toEqual([]);
    const text = formatTargets(targets).split('\n');
    expect(text[0]).toBe('targets (each a ratio to a baseline of this run):');
    expect(text[1]).toBe('  MISSED visits / raw inserts: 0.088 (target >= 0.25)');
    expect(text[2]).toMatch(/^ {9}why: 2\.34 ms CPU per visit/);
    expect(text).toHaveLength(1 + 1 + 5 + 1);
    expect(text[7]).toBe('  met    visits with a subscriber / raw inserts: 0.231 (target >= 0.15)');
  });

  it('does not work out a reason for a met target', () => {
    const why = jest.fn(() => ['never']);
    expect(check('x', 1, '<=', 2, why)).toMatchObject({ met: true, why: [] });
    expect(why).not.toHaveBeenCalled();
    expect(check('x', 3, '<=', 2, why)).toMatchObject({ met: false, why: ['never'] });
  });
});
