/**
 * Reads the services' command statistics (`MONGO_COMMAND_STATS_FILE`, which the bench sets;
 * libs/mongo/src/command-stats.ts): every process writes its totals by collection, command and
 * filter shape to `<prefix>.<database>.<pid>.json`, every 2 s and at exit. The bench's meters
 * (write-stats.ts, console-db-time.ts) sum them before and after a window.
 */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** The processes write their totals every 2 s; waiting this long sees the latest. */
const FLUSH_MS = 2_500;

/** One total of one process: `key` is `<collection> <command> <filter shape>`. */
export interface CommandStatsRow {
  database: string;
  key: string;
  count: number;
  /** Documents the commands carried (inserted or updated, one for any other command). */
  docs: number;
  totalMs: number;
}

/** Every process's totals under `prefix`, as its file shows them now. */
export function readCommandStats(prefix: string): CommandStatsRow[] {
  const dir = path.dirname(prefix);
  const base = `${path.basename(prefix)}.`;
  const all: CommandStatsRow[] = [];
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (!name.startsWith(base) || !name.endsWith('.json')) continue;
    const [database = ''] = name.slice(base.length).split('.');
    let rows: Omit<CommandStatsRow, 'database'>[];
    try {
      rows = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
    } catch {
      continue; // being rewritten this instant; its next flush is read at the window's end
    }
    for (const row of rows) all.push({ ...row, database });
  }
  return all;
}

/** The totals as `read` sums them once every process has flushed what it did until now. */
export async function flushedTotals<T>(read: () => T): Promise<T> {
  await delay(FLUSH_MS);
  return read();
}
