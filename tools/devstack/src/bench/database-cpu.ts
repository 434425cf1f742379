/**
 * The CPU time the local database server has used, read from /proc (Linux), for `bench:scale`:
 * a start-up sweep of a large collection is a scan on the local server, and once the server
 * answers other connections during a scan (deploy/local/mongo-java-server) only its CPU shows
 * that one is still running, and would share the cores with the next service's start.
 */
import fs from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** The process serving the MongoDB URL's port on this machine (mongo-java-server or mongod). */
export function databasePid(mongoUrl: string): number | undefined {
  const port = new URL(mongoUrl).port;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile
    }
    const server = args.includes('--backend') || args.some((a) => a.endsWith('mongod'));
    if (server && args[args.indexOf('--port') + 1] === port) return Number(entry);
  }
  return undefined;
}

/** User and system CPU time of the process so far, in ms; undefined once it is gone. */
export function cpuMs(pid: number): number | undefined {
  try {
    // The command name (field 2) may hold spaces: the fields after its closing parenthesis.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}
