/**
 * Whether a process is the one listening on a TCP port, read from Linux's /proc. Ports are
 * chosen free and then bound by a child, so another process may take one in between; its
 * answers on that port must not pass for our child's (a gateway that failed to bind while
 * another system's gateway answered its readiness probe sent a test's requests to the wrong
 * system).
 */
import fs from 'node:fs';

/** True or false on Linux; undefined where /proc cannot tell (then callers do not check). */
export function listensOn(pid: number, port: number): boolean | undefined {
  let inodes: Set<string>;
  try {
    inodes = listeningInodes(port);
  } catch {
    return undefined;
  }
  if (inodes.size === 0) return false;
  let fds: string[];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false; // gone, or not ours to read
  }
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match && inodes.has(match[1]!)) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

/** Inodes of the sockets listening on `port`, IPv4 and IPv6. */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch (error) {
      if (table.endsWith('6')) continue; // no IPv6 here
      throw error;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is "HEXIP:HEXPORT"; state 0A is LISTEN; the inode is the tenth field.
      if (fields.length > 9 && fields[1]!.endsWith(`:${hexPort}`) && fields[3] === '0A') {
        inodes.add(fields[9]!);
      }
    }
  }
  return inodes;
}
