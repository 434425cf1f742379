/**
 * Documents written per event, from the services' own command statistics
 * (`MONGO_COMMAND_STATS_FILE`, libs/mongo/src/command-stats.ts): every process writes its totals
 * by collection and command to `<prefix>.<database>.<pid>.json`, every 2 s and at exit. A window
 * sums the documents its write commands carried (inserts, updates, deletes, findAndModify) over
 * every file, before and after; a file that appeared meanwhile (a restarted service) counts from
 * zero. So a change that adds a write to an event's path shows here as a number.
 */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

const WRITE_COMMANDS = new Set(['insert', 'update', 'delete', 'findAndModify']);
/** The processes write their totals every 2 s; waiting this long sees the latest. */
const FLUSH_MS = 2_500;

export interface WriteAccount {
  events: number;
  /** Documents written per event, by `<database>.<collection> <command>`, largest first. */
  rows: { key: string; perEvent: number }[];
  totalPerEvent: number;
}

type Totals = Map<string, number>;

export class WriteMeter {
  constructor(private readonly prefix: string) {}

  /** Opens a window on the totals as the files show them after a flush. */
  async start(): Promise<{ end(events: number): Promise<WriteAccount> }> {
    await delay(FLUSH_MS);
    const before = this.read();
    return {
      end: async (events) => {
        await delay(FLUSH_MS);
        const after = this.read();
        const rows = [...after]
          .map(([key, docs]) => ({ key, perEvent: (docs - (before.get(key) ?? 0)) / events }))
          .filter((row) => row.perEvent >= 0.005)
          .sort((a, b) => b.perEvent - a.perEvent);
        return {
          events,
          rows,
          totalPerEvent: rows.reduce((sum, row) => sum + row.perEvent, 0),
        };
      },
    };
  }

  /** Documents written, by `<database>.<collection> <command>`, summed over every process. */
  private read(): Totals {
    const dir = path.dirname(this.prefix);
    const base = `${path.basename(this.prefix)}.`;
    const totals: Totals = new Map();
    for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
      if (!name.startsWith(base) || !name.endsWith('.json')) continue;
      const database = name.slice(base.length).split('.')[0];
      let rows: { key: string; docs: number }[];
      try {
        rows = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
      } catch {
        continue; // being rewritten this instant; its next flush is read at the window's end
      }
      for (const row of rows) {
        const [collection, command] = row.key.split(' ');
        if (!command || !WRITE_COMMANDS.has(command)) continue;
        const key = `${database}.${collection} ${command}`;
        totals.set(key, (totals.get(key) ?? 0) + row.docs);
      }
    }
    return totals;
  }
}

export function formatWriteAccounts(accounts: Record<string, WriteAccount | undefined>): string {
  const entries = Object.entries(accounts).filter(
    (entry): entry is [string, WriteAccount] => entry[1] !== undefined,
  );
  const lines = ['documents written per event (command stats of every service):'];
  for (const [name, account] of entries) {
    const parts = account.rows.map((row) => `${row.key} ${row.perEvent.toFixed(2)}`);
    lines.push(
      `  ${name} (${account.events}): total ${account.totalPerEvent.toFixed(2)} = ${parts.join(', ')}`,
    );
  }
  return lines.join('\n');
}
