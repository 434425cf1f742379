/**
 * A development aid for finding slow database access: with `MONGO_COMMAND_STATS_FILE` set,
 * every command's round trip is timed and totalled by collection, command and the shape of its
 * filter (field names only, never values), and the totals are written to
 * `<file>.<database>.<pid>.json` every 2 s and when the process exits. Off by default; costs
 * nothing then. One file per process, so a restarted service starts a new file and the old
 * one keeps its final totals: the bench sums the files before and after a window to count the
 * documents written per event (tools/devstack/src/bench/write-stats.ts).
 */
import fs from 'node:fs';
import type { Connection } from 'mongoose';

interface Totals {
  count: number;
  /** Documents the commands carried (inserted or updated, one for any other command). */
  docs: number;
  totalMs: number;
  maxMs: number;
}

export function commandStatsEnabled(): boolean {
  return Boolean(process.env.MONGO_COMMAND_STATS_FILE);
}

export function collectCommandStats(connection: Connection, dbName: string): void {
  const file = process.env.MONGO_COMMAND_STATS_FILE;
  if (!file) return;
  const client = connection.getClient();
  const started = new Map<number, { key: string; docs: number; at: number }>();
  const totals = new Map<string, Totals>();
  client.on('commandStarted', (event) => {
    started.set(event.requestId, {
      key: keyOf(event.commandName, event.command),
      docs: docsOf(event.command),
      at: performance.now(),
    });
  });
  const finish = (event: { requestId: number }) => {
    const start = started.get(event.requestId);
    if (!start) return;
    started.delete(event.requestId);
    const ms = performance.now() - start.at;
    const t = totals.get(start.key) ?? { count: 0, docs: 0, totalMs: 0, maxMs: 0 };
    t.count += 1;
    t.docs += start.docs;
    t.totalMs += ms;
    t.maxMs = Math.max(t.maxMs, ms);
    totals.set(start.key, t);
  };
  client.on('commandSucceeded', finish);
  client.on('commandFailed', finish);
  const write = () => {
    const rows = [...totals.entries()]
      .map(([key, t]) => ({ key, ...t, avgMs: t.totalMs / t.count }))
      .sort((a, b) => b.totalMs - a.totalMs);
    // Written whole and renamed, so a reader never sees half a file.
    const target = `${file}.${dbName}.${process.pid}.json`;
    fs.writeFileSync(`${target}.tmp`, `${JSON.stringify(rows, null, 1)}\n`);
    fs.renameSync(`${target}.tmp`, target);
  };
  setInterval(write, 2_000).unref();
  // A stopped service's last writes would otherwise be lost from the totals.
  process.once('exit', write);
}

function keyOf(name: string, command: Record<string, unknown>): string {
  const collection = String(command[name] ?? '');
  const filter =
    command.filter ?? command.query ?? (command.updates as { q?: unknown }[] | undefined)?.[0]?.q;
  const deletes = (command.deletes as { q?: unknown }[] | undefined)?.[0]?.q;
  const shape = shapeOf(filter ?? deletes);
  const pipeline = Array.isArray(command.pipeline)
    ? ` pipeline:${command.pipeline.map((s) => Object.keys(s as object)[0]).join(',')}`
    : '';
  const n = Array.isArray(command.updates)
    ? ` n~${bucket(command.updates.length)}`
    : Array.isArray(command.documents)
      ? ` n~${bucket(command.documents.length)}`
      : '';
  return `${collection} ${name} ${shape}${pipeline}${n}`;
}

function docsOf(command: Record<string, unknown>): number {
  for (const field of ['updates', 'documents', 'deletes']) {
    const list = command[field];
    if (Array.isArray(list)) return list.length;
  }
  return 1;
}

function bucket(n: number): string {
  return n <= 1 ? '1' : n <= 10 ? '≤10' : n <= 100 ? '≤100' : '>100';
}

function shapeOf(filter: unknown): string {
  if (!filter || typeof filter !== 'object') return '{}';
  return `{${Object.entries(filter as Record<string, unknown>)
    .map(([k, v]) =>
      v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)
        ? `${k}:${
            Object.keys(v)
              .filter((o) => o.startsWith('$'))
              .join('|') || 'obj'
          }`
        : k,
    )
    .join(',')}}`;
}
