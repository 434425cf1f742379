/**
 * Where a console page's time goes in the database: the services' command statistics
 * (`MONGO_COMMAND_STATS_FILE`, which the bench sets; one file per process, written every 2 s)
 * summed before and after a page's requests, so the bench can print, next to a ratio, the
 * commands that took the time, per round (one page request and its REST request(s)). A command
 * only the page makes shows once per round; one both sides make, twice.
 */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** The processes write their totals every 2 s; waiting this long sees the latest. */
const FLUSH_MS = 2_500;

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
    await delay(FLUSH_MS);
    const before = this.read();
    return {
      end: async (rounds, top = 3) => {
        await delay(FLUSH_MS);
        const after = this.read();
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
    const dir = path.dirname(this.prefix);
    const base = `${path.basename(this.prefix)}.`;
    const totals: Totals = new Map();
    for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
      if (!name.startsWith(base) || !name.endsWith('.json')) continue;
      const database = name.slice(base.length).split('.')[0];
      let rows: { key: string; count: number; totalMs: number }[];
      try {
        rows = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
      } catch {
        continue; // being replaced: the next read sees it
      }
      for (const row of rows) {
        const key = `${database}.${row.key}`;
        const t = totals.get(key) ?? { count: 0, totalMs: 0 };
        t.count += row.count;
        t.totalMs += row.totalMs;
        totals.set(key, t);
      }
    }
    return totals;
  }
}

export function formatDbCosts(costs: DbCost[]): string {
  return costs
    .map((c) => `${c.key} ×${c.perRound.toFixed(1)} ${c.msPerRound.toFixed(1)} ms`)
    .join('; ');
}
