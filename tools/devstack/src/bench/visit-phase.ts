/**
 * The bench's first phase (and `--only visits`): the warmed raw insert rate (the baseline of
 * every ratio), visits without and with a `referral.created` subscriber, and the visit skeleton,
 * each with its CPU window; the visits also with their documents written.
 */
import type { Infra } from '../types';
import { CPU } from './bench-verdict';
import type { CountedProcess } from './cpu-account';
import { benchHookedVisits } from './hooked-visits';
import { benchVisits, prepareAffiliate, type BenchMerchant } from './money-bench';
import { measureRawInserts } from './raw-insert';
import { benchVisitSkeleton } from './skeleton-bench';
import { VisitDrainProbe } from './visit-drain';
import type { WriteMeter } from './write-stats';

export type WindowFor = (
  name: string,
  only?: CountedProcess[],
) => () => { end(events: number): unknown };

export interface VisitPhaseOptions {
  gatewayUrl: string;
  load: { connections: number; durationSeconds: number };
  merchant: BenchMerchant;
  hookedMerchant: () => BenchMerchant;
  windowFor: WindowFor;
  writes: WriteMeter;
  say: (line: string) => void;
  /** Closes what the phase opened, at the bench's end. */
  onStop: (stop: () => unknown) => void;
}

export async function runVisitPhase(infra: Infra, o: VisitPhaseOptions) {
  const { load, say, windowFor, writes } = o;
  say('raw inserts …');
  const raw = await measureRawInserts(infra.mongoUrl, load.connections, load.durationSeconds);
  say(
    `raw single-document inserts, ${load.connections} writers: ${raw.insertsPerSecond.toFixed(0)}/s (warm-up windows of ${raw.warmup.windowSeconds} s: ${raw.warmup.insertsPerSecond.join(', ')}/s)`,
  );

  const probe = await VisitDrainProbe.open(infra.mongoUrl, infra.natsUrl);
  o.onStop(() => probe.close());
  say('visits …');
  const merchant = o.merchant;
  const affiliate = await prepareAffiliate(o.gatewayUrl, merchant);
  const visits = await benchVisits(o.gatewayUrl, merchant, affiliate.links[0].token, load, probe, {
    name: 'POST /t/v1/visits (new referral each)',
    window: windowFor(CPU.visits),
    writes,
  });

  say('visits with a referral.created subscriber …');
  const hooked = await benchHookedVisits(o.gatewayUrl, o.hookedMerchant(), load, {
    probe,
    window: windowFor(CPU.hooked),
    writes,
  });

  say('visit skeleton …');
  const skeleton = await benchVisitSkeleton(infra, load, (processes) =>
    windowFor(CPU.skeleton, processes),
  );
  return { raw, visits, hooked, skeleton };
}

/** The phase's lines under the table: the visits' write-behind and the skeleton's ratio. */
export function formatVisitPhase(phase: Awaited<ReturnType<typeof runVisitPhase>>): string {
  const { raw, visits, hooked, skeleton } = phase;
  return [
    `visits are counted when answered 2xx, written and published: the load ran ${visits.loadSeconds.toFixed(1)} s, the write-behind finished ${visits.drainSeconds.toFixed(1)} s later (with a subscriber, also every referral.created delivered: ${hooked.loadSeconds.toFixed(1)} s + ${hooked.drainSeconds.toFixed(1)} s)`,
    `visit skeleton / raw inserts: ${(skeleton.requestsPerSecond / raw.insertsPerSecond).toFixed(3)} (no target: the ceiling of the design's visit path); visits / skeleton: ${(visits.requestsPerSecond / skeleton.requestsPerSecond).toFixed(3)}`,
  ].join('\n');
}
