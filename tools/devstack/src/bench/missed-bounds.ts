/**
 * What bounds a missed target, computed from the same run (issue 32: "for each one missed, the
 * measured reason ... a figure, not an opinion"). All processes share the machine's cores, so a
 * path that costs c ms of CPU per event in all its processes together cannot go faster than
 * cores × 1,000 / c events a second: against the run's baseline, a ceiling ratio. A target ratio
 * turns the other way into a CPU budget per event, cores × 1,000 / (target × baseline), and the
 * processes above it (alone, or the fewest together) are what reaching it would have to remove.
 * Arithmetic and wording only; the figures come from cpu-account.ts and write-stats.ts.
 */
import type { CpuAccount, CpuRow } from './cpu-account';
import type { WriteAccount } from './write-stats';

export interface CpuBound {
  msPerEvent: number;
  ceilingPerSecond: number;
  ceilingRatio: number;
  targetPerSecond: number;
  /** CPU per event, in all processes, at which the cores allow the target. */
  budgetMsPerEvent: number;
  /** CPU per event to take away to fit the budget (0 when it fits). */
  cutMsPerEvent: number;
  /** Processes whose own CPU per event exceeds the whole budget. */
  aloneOver: CpuRow[];
  /** The fewest processes, largest first, whose CPU together exceeds the cut. */
  fewestForCut: CpuRow[];
}

export function cpuBound(
  cpu: CpuAccount,
  baselinePerSecond: number,
  targetRatio: number,
): CpuBound {
  const capacityMsPerSecond = cpu.cores * 1000;
  const ceilingPerSecond = capacityMsPerSecond / cpu.totalMsPerEvent;
  const targetPerSecond = targetRatio * baselinePerSecond;
  const budgetMsPerEvent = capacityMsPerSecond / targetPerSecond;
  const cutMsPerEvent = Math.max(0, cpu.totalMsPerEvent - budgetMsPerEvent);
  const largestFirst = [...cpu.rows].sort((a, b) => b.msPerEvent - a.msPerEvent);
  const fewestForCut: CpuRow[] = [];
  let sum = 0;
  for (const row of largestFirst) {
    if (cutMsPerEvent === 0 || sum > cutMsPerEvent) break;
    fewestForCut.push(row);
    sum += row.msPerEvent;
  }
  return {
    msPerEvent: cpu.totalMsPerEvent,
    ceilingPerSecond,
    ceilingRatio: ceilingPerSecond / baselinePerSecond,
    targetPerSecond,
    budgetMsPerEvent,
    cutMsPerEvent,
    aloneOver: largestFirst.filter((row) => row.msPerEvent > budgetMsPerEvent),
    fewestForCut,
  };
}

export interface ThroughputMiss {
  /** One event, singular: "visit", "charge", "delivery". */
  event: string;
  baselineName: string;
  baselinePerSecond: number;
  measuredPerSecond: number;
  targetRatio: number;
  cpu?: CpuAccount;
  writes?: WriteAccount;
  /** The path's mandated hops alone (the visit skeleton): its rate and CPU. */
  floor?: { name: string; perSecond: number; cpu?: CpuAccount };
  /** A documents-per-event target: the database's share at that count is printed. */
  documentsTarget?: number;
}

/** The lines printed under a missed throughput target. */
export function explainThroughput(miss: ThroughputMiss): string[] {
  const { cpu, event } = miss;
  if (!cpu || cpu.rows.length === 0) return ['why: no CPU account for this window (no /proc)'];
  const bound = cpuBound(cpu, miss.baselinePerSecond, miss.targetRatio);
  const busy =
    cpu.machineBusyShare === undefined
      ? ''
      : `, cores ${pct(cpu.machineBusyShare)} busy in the window`;
  const lines = [
    `why: ${ms(bound.msPerEvent)} ms CPU per ${event} in all processes (${rows(cpu.rows)}) on ${cpu.cores} cores: a ceiling of ${rate(bound.ceilingPerSecond)}/s = ${bound.ceilingRatio.toFixed(3)} × ${miss.baselineName}; measured ${rate(miss.measuredPerSecond)}/s, ${pct(miss.measuredPerSecond / bound.ceilingPerSecond)} of that ceiling${busy}`,
    `needs: ${miss.targetRatio} × = ${rate(bound.targetPerSecond)}/s, so at most ${ms(bound.budgetMsPerEvent)} ms CPU per ${event} in all processes: ${ms(bound.cutMsPerEvent)} ms (${pct(bound.cutMsPerEvent / bound.msPerEvent)}) less than now`,
  ];
  if (bound.aloneOver.length) {
    lines.push(`over that whole budget on its own: ${rows(bound.aloneOver)}`);
  } else if (bound.cutMsPerEvent > 0) {
    const together = bound.fewestForCut.reduce((sum, row) => sum + row.msPerEvent, 0);
    const names = bound.fewestForCut.map((row) => row.process).join(' + ');
    lines.push(
      bound.fewestForCut.length === 1
        ? `no process alone is over it; the cut could come from ${names} alone (${ms(together)} ms)`
        : `no process alone is over it; the cut is more than the ${bound.fewestForCut.length - 1} largest take: it needs at least ${names} (${ms(together)} ms together)`,
    );
  }
  if (miss.floor) lines.push(...explainFloor(miss, bound));
  if (miss.writes) lines.push(explainDocuments(miss, bound));
  return lines;
}

function explainFloor(miss: ThroughputMiss, bound: CpuBound): string[] {
  const floor = miss.floor!;
  const ratio = floor.perSecond / miss.baselinePerSecond;
  const head = `mandated hops alone (${floor.name}): ${rate(floor.perSecond)}/s = ${ratio.toFixed(3)} × ${miss.baselineName}`;
  if (!floor.cpu || floor.cpu.rows.length === 0) return [`${head} (no CPU account)`];
  const floorMs = floor.cpu.totalMsPerEvent;
  const beyond = bound.msPerEvent - floorMs;
  const left = bound.budgetMsPerEvent - floorMs;
  return [
    `${head}, ${ms(floorMs)} ms CPU per ${miss.event} (${rows(floor.cpu.rows)})`,
    left > 0
      ? `this path's own CPU beyond those hops: ${ms(beyond)} ms per ${miss.event}; the target leaves ${ms(left)} ms for it (${(beyond / left).toFixed(1)} × too much)`
      : `the hops alone take more than the target's budget of ${ms(bound.budgetMsPerEvent)} ms: no implementation of this path reaches it on these cores`,
  ];
}

function explainDocuments(miss: ThroughputMiss, bound: CpuBound): string {
  const docs = miss.writes!.totalPerEvent;
  const database = miss.cpu!.rows.find((row) => row.process === 'database')?.msPerEvent ?? 0;
  const others = bound.msPerEvent - database;
  const perDocument = docs > 0 ? database / docs : 0;
  const head = `${docs.toFixed(2)} documents written per ${miss.event}; database ${ms(database)} ms = ${perDocument.toFixed(3)} ms per document; the other processes ${ms(others)} ms`;
  const othersVsBudget =
    others > bound.budgetMsPerEvent
      ? `over the whole ${ms(bound.budgetMsPerEvent)} ms budget by themselves`
      : `within the ${ms(bound.budgetMsPerEvent)} ms budget`;
  if (miss.documentsTarget === undefined) return `${head}, ${othersVsBudget}`;
  const atTarget = perDocument * miss.documentsTarget;
  return `${head}, ${othersVsBudget}; at ${miss.documentsTarget} documents the database would take ${ms(atTarget)} ms, ${ms(others + atTarget)} ms in all`;
}

/** Under a missed latency target: the share of the cores the path used at its steady rate. */
export function explainLatency(opts: {
  event: string;
  ratePerSecond: number;
  cpu?: CpuAccount;
  p50Ms: number;
  /** How busy all cores were while the latency was measured (other work included). */
  machineBusyShare?: number;
}): string[] {
  if (!opts.cpu || opts.cpu.rows.length === 0) return ['why: no CPU account for this path'];
  const msPerSecond = opts.ratePerSecond * opts.cpu.totalMsPerEvent;
  const share = msPerSecond / (opts.cpu.cores * 1000);
  const head = `why: at ${opts.ratePerSecond} ${opts.event}s/s the path takes ${opts.ratePerSecond} × ${ms(opts.cpu.totalMsPerEvent)} ms = ${msPerSecond.toFixed(0)} ms of CPU a second, ${pct(share)} of ${opts.cpu.cores} cores`;
  const busy = opts.machineBusyShare;
  if (share >= 0.5)
    return [`${head}: the path itself keeps the cores that busy, so queueing is part of the tail`];
  if (busy !== undefined && busy >= 0.8) {
    return [
      `${head}, but the cores were ${pct(busy)} busy while it was measured (the probe's polling, the fan-out, anything else on the machine): queueing is part of the tail (p50 ${opts.p50Ms} ms)`,
    ];
  }
  return [
    `${head}: the CPU does not bound the tail (p50 ${opts.p50Ms} ms); it is time waited between the steps (batching windows, acks)`,
  ];
}

/** Under a missed documents-per-event target: how far over, by service and largest step. */
export function explainDocumentCount(writes: WriteAccount | undefined, target: number): string[] {
  if (!writes) return ['why: no command statistics for this window'];
  const byService = new Map<string, number>();
  for (const row of writes.rows) {
    const service = row.key.split('.')[0]!;
    byService.set(service, (byService.get(service) ?? 0) + row.perEvent);
  }
  const services = [...byService]
    .sort((a, b) => b[1] - a[1])
    .map(([name, docs]) => `${name} ${docs.toFixed(2)}`);
  const steps = writes.rows
    .filter((row) => row.perEvent >= 1)
    .map((row) => `${row.key} ${row.perEvent.toFixed(2)}`);
  return [
    `why: ${writes.totalPerEvent.toFixed(2)} documents, ${(writes.totalPerEvent - target).toFixed(2)} over; by service ${services.join(', ')}; every step writing one or more per event: ${steps.join(', ')}`,
  ];
}

/** Under a missed ratio of two paths (ours against a baseline): each one's CPU per request. */
export function explainPathRatio(opts: {
  ours: { name: string; cpu?: CpuAccount };
  baseline: { name: string; cpu?: CpuAccount };
  targetRatio: number;
}): string[] {
  const { ours, baseline } = opts;
  if (!ours.cpu?.rows.length || !baseline.cpu?.rows.length) {
    return ['why: no CPU account for these windows'];
  }
  const ceiling = baseline.cpu.totalMsPerEvent / ours.cpu.totalMsPerEvent;
  const budget = baseline.cpu.totalMsPerEvent / opts.targetRatio;
  return [
    `why: ${ours.name} takes ${ms(ours.cpu.totalMsPerEvent)} ms CPU per request (${rows(ours.cpu.rows)}), ${baseline.name} ${ms(baseline.cpu.totalMsPerEvent)} ms (${rows(baseline.cpu.rows)}): with the cores full in both, the ratio can reach ${ceiling.toFixed(3)}`,
    `needs: ${opts.targetRatio} × needs at most ${ms(budget)} ms CPU per request on ${ours.name}: ${ms(Math.max(0, ours.cpu.totalMsPerEvent - budget))} ms less than now`,
  ];
}

function rows(list: CpuRow[]): string {
  return list.map((row) => `${row.process} ${ms(row.msPerEvent)}`).join(', ');
}

function ms(value: number): string {
  return value.toFixed(2);
}

function rate(perSecond: number): string {
  return perSecond >= 100 ? perSecond.toFixed(0) : perSecond.toFixed(1);
}

function pct(share: number): string {
  return `${(share * 100).toFixed(0)} %`;
}
