/**
 * Documents written per event, from the services' own command statistics
 * (`MONGO_COMMAND_STATS_FILE`, libs/mongo/src/command-stats.ts): every process writes its totals
 * by collection and command to `<prefix>.<database>.<pid>.json`, every 2 s and at exit. A window
 * sums the documents its write commands carried (inserts, updates, deletes, findAndModify) over
 * every file, before and after; a file that appeared meanwhile (a restarted service) counts from
 * zero. So a change that adds a write to an event's path shows here as a number.
 */
import { flushedTotals, readCommandStats } from './command-stats-files';

const WRITE_COMMANDS = new Set(['insert', 'update', 'delete', 'findAndModify']);

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
    const before = await flushedTotals(() => this.read());
    return {
      end: async (events) => {
        const after = await flushedTotals(() => this.read());
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
    const totals: Totals = new Map();
    for (const row of readCommandStats(this.prefix)) {
      const [collection, command] = row.key.split(' ');
      if (!command || !WRITE_COMMANDS.has(command)) continue;
      const key = `${row.database}.${collection} ${command}`;
      totals.set(key, (totals.get(key) ?? 0) + row.docs);
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
