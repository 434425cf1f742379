type Hook = () => void;

const hooks = new Set<Hook>();
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let installed = false;

function runHooks(): void {
  // Newest first, like `defer`: processes die before the data dirs they write to go.
  for (const hook of [...hooks].reverse()) {
    try {
      hook();
    } catch {
      // Best effort: the process is going away, one failing hook must not stop the rest.
    }
  }
  hooks.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  // Another listener means the application owns shutdown; it will exit and
  // trigger the 'exit' hook. Alone, we stand in for Node's default handling,
  // which would die without emitting 'exit' and leave children running.
  if (process.listenerCount(signal) > 1) return;
  runHooks();
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  process.kill(process.pid, signal);
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', runHooks);
  for (const s of SIGNALS) process.on(s, onSignal);
}

/**
 * Registers synchronous cleanup for when this process ends, so servers we
 * spawned do not outlive us. Returns a function that unregisters it.
 */
export function onParentExit(hook: Hook): () => void {
  install();
  hooks.add(hook);
  return () => {
    hooks.delete(hook);
  };
}
