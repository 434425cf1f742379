/**
 * The bench's targets (issue 32's, and the two list targets of an earlier issue), each a ratio
 * to a baseline of the same run, and under each one missed the measured reason
 * (missed-bounds.ts) from the same run's CPU and documents per event. Phases run alone
 * (`--only visits`) give only their own targets.
 */
import type { ChargeBenchFigures } from './charge-bench';
import type { CpuAccount } from './cpu-account';
import type { Measurement } from './measure';
import {
  explainDocumentCount,
  explainLatency,
  explainPathRatio,
  explainThroughput,
} from './missed-bounds';
import type { WebhookBenchResult } from './webhook-bench';
import type { WriteAccount } from './write-stats';

export interface TargetCheck {
  name: string;
  value: number;
  op: '>=' | '<=';
  target: number;
  met: boolean;
  /** Printed under a missed target: what bounds it, measured. */
  why: string[];
}

/** The CPU windows' names (run-bench.ts opens them, cpu-account.ts fills them). */
export const CPU = {
  visits: 'visits',
  hooked: 'visits with a referral.created subscriber',
  skeleton: 'visit skeleton',
  chargeDrain: 'charge drain, once started',
  chargeSteady: 'charges at a steady rate',
  webhookDrain: 'webhook drain, once started',
  affiliatesGateway: 'affiliate list, gateway',
  affiliatesOneProcess: 'affiliate list, one process',
} as const;

export interface VerdictFigures {
  rawInsertsPerSecond: number;
  cpu: Record<string, CpuAccount | undefined>;
  visits?: { visits: Measurement; hooked: Measurement; skeleton: Measurement };
  charges?: ChargeBenchFigures;
  webhooks?: WebhookBenchResult;
  writes?: { visit?: WriteAccount; hooked?: WriteAccount; delivery?: WriteAccount };
  referralList?: { small: Measurement; large: Measurement };
  affiliates?: { gateway: Measurement; monolith: Measurement };
}

export function check(
  name: string,
  value: number,
  op: '>=' | '<=',
  target: number,
  why: () => string[] = () => [],
): TargetCheck {
  const met = op === '>=' ? value >= target : value <= target;
  return { name, value, op, target, met, why: met ? [] : why() };
}

export function benchTargets(f: VerdictFigures): TargetCheck[] {
  const raw = f.rawInsertsPerSecond;
  const base = { baselineName: 'raw inserts', baselinePerSecond: raw };
  const targets: TargetCheck[] = [];
  if (f.visits) {
    const { visits, hooked, skeleton } = f.visits;
    const floor = { name: 'visit skeleton', perSecond: skeleton.requestsPerSecond };
    const skeletonCpu = f.cpu[CPU.skeleton];
    const visitTarget = (name: string, m: Measurement, target: number, cpu: string) =>
      check(name, m.requestsPerSecond / raw, '>=', target, () =>
        explainThroughput({
          ...base,
          event: 'visit',
          measuredPerSecond: m.requestsPerSecond,
          targetRatio: target,
          cpu: f.cpu[cpu],
          floor: { ...floor, cpu: skeletonCpu },
        }),
      );
    targets.push(visitTarget('visits / raw inserts', visits, 0.25, CPU.visits));
    targets.push(visitTarget('visits with a subscriber / raw inserts', hooked, 0.15, CPU.hooked));
  }
  if (f.charges) {
    const charges = f.charges;
    const drain = charges.drain.commissionsPerSecond;
    targets.push(
      check('charge drain / raw inserts', drain / raw, '>=', 0.05, () =>
        explainThroughput({
          ...base,
          event: 'charge',
          measuredPerSecond: drain,
          targetRatio: 0.05,
          cpu: f.cpu[CPU.chargeDrain],
          writes: charges.writes,
          documentsTarget: 8,
        }),
      ),
    );
  }
  if (f.webhooks) {
    const drain = f.webhooks.backlog.eventsPerSecond;
    targets.push(
      check('webhook drain / raw inserts', drain / raw, '>=', 0.3, () =>
        explainThroughput({
          ...base,
          event: 'delivery',
          measuredPerSecond: drain,
          targetRatio: 0.3,
          cpu: f.cpu[CPU.webhookDrain],
          writes: f.webhooks?.writes,
        }),
      ),
    );
  }
  if (f.charges) {
    const { steady, writes } = f.charges;
    targets.push(
      check(`hook → commission p99 ms at ${steady.ratePerSecond}/s`, steady.p99Ms, '<=', 150, () =>
        explainLatency({
          event: 'charge',
          ratePerSecond: steady.ratePerSecond,
          cpu: f.cpu[CPU.chargeDrain],
          p50Ms: steady.p50Ms,
          machineBusyShare: f.cpu[CPU.chargeSteady]?.machineBusyShare,
        }),
      ),
    );
    targets.push(
      check('documents written per charge', writes?.totalPerEvent ?? NaN, '<=', 8, () =>
        explainDocumentCount(writes, 8),
      ),
    );
  }
  if (f.referralList) {
    const { small, large } = f.referralList;
    targets.push(
      check(
        'referral list 10k / 100',
        large.requestsPerSecond / small.requestsPerSecond,
        '>=',
        0.5,
        () => ['why: this phase has no CPU account (add one to referral-list-bench.ts)'],
      ),
    );
  }
  if (f.affiliates) {
    const { gateway, monolith } = f.affiliates;
    targets.push(
      check(
        'affiliate list gateway / one-process',
        gateway.requestsPerSecond / monolith.requestsPerSecond,
        '>=',
        0.7,
        () =>
          explainPathRatio({
            ours: { name: 'the gateway path', cpu: f.cpu[CPU.affiliatesGateway] },
            baseline: { name: 'one process', cpu: f.cpu[CPU.affiliatesOneProcess] },
            targetRatio: 0.7,
          }),
      ),
    );
  }
  return targets;
}

export function formatTargets(targets: TargetCheck[]): string {
  const lines = ['targets (each a ratio to a baseline of this run):'];
  for (const t of targets) {
    lines.push(
      `  ${t.met ? 'met   ' : 'MISSED'} ${t.name}: ${t.value.toFixed(3)} (target ${t.op} ${t.target})`,
    );
    for (const line of t.why) lines.push(`         ${line}`);
  }
  return lines.join('\n');
}
