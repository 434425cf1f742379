/**
 * Where a console page's time goes in the database: the services' command statistics
 * (`MONGO_COMMAND_STATS_FILE`, which the bench sets; one file per process, written every 2 s)
 * summed before and after a page's requests, so the bench can print, next to a ratio, the
 * commands that took the time, per round (one page request and its REST request(s)). A command
 * only the page makes shows once per round; one both sides make, twice.
 */
import { flushedTotals, readCommandStats } from './command-stats-files';

export interface DbCost {
  /** `<database>.<collection> <command> <filter shape>`. */
  key: string;
  perRound: number;
  msPerRound: number;
}

type Totals = Map<string, { count: number; totalMs: number }>;

export class DbTimeMeter {
  /** `prefix`: the MONGO_COMMAND_STATS_FILE the services were given. */
  constructor(private readonly prefix: string) {}

  async start(): Promise<{ end(rounds: number, top?: number): Promise<DbCost[]> }> {
    const before = await flushedTotals(() => this.read());
    return {
      end: async (rounds, top = 3) => {
        const after = await flushedTotals(() => this.read());
        return (
          [...after]
            .map(([key, t]) => {
              const b = before.get(key) ?? { count: 0, totalMs: 0 };
              return {
                key,
                perRound: (t.count - b.count) / rounds,
                msPerRound: (t.totalMs - b.totalMs) / rounds,
              };
            })
            // Fewer than one per round: a background job's (a sweep), not the page's or REST's.
            .filter((c) => c.perRound >= 0.9)
            .sort((a, b) => b.msPerRound - a.msPerRound)
            .slice(0, top)
        );
      },
    };
  }

  private read(): Totals {
    const totals: Totals = new Map();
    for (const row of readCommandStats(this.prefix)) {
      const key = `${row.database}.${row.key}`;
      const t = totals.get(key) ?? { count: 0, totalMs: 0 };
      t.count += row.count;
      t.totalMs += row.totalMs;
      totals.set(key, t);
    }
    return totals;
  }
}

export function formatDbCosts(costs: DbCost[]): string {
  return costs
    .map((c) => `${c.key} ×${c.perRound.toFixed(1)} ${c.msPerRound.toFixed(1)} ms`)
    .join('; ');
}
