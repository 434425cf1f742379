/**
 * The faults of one chaos round, at random times within a window while the load runs:
 * SIGKILLs of random service processes (the launcher's supervisor starts them again), one NATS
 * restart with its store kept, one Redis outage, and a webhook receiver answering 500 for a
 * while. Each fault is logged with when it happened and how many journeys were in flight.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { RunningSystem } from '@aff/devstack';
import type { WebhookReceiver } from '../../services/webhook/test/support/webhook-receiver';
import type { RestartableServer } from './servers';

export interface FaultPlan {
  kills: number;
  /** Faults are spread over this window from the start of the round's load. */
  windowMs: number;
  redisOutageMs: number;
  webhook500Ms: number;
  /** How long NATS stays down between its stop and its start. */
  natsDownMs: number;
}

export interface FaultLog {
  at: number;
  what: string;
  inFlight: number;
}

export interface FaultTargets {
  system: RunningSystem;
  nats: RestartableServer;
  redis: RestartableServer;
  receiver: WebhookReceiver;
  inFlight: () => number;
}

export async function runFaults(
  plan: FaultPlan,
  targets: FaultTargets,
  log: FaultLog[],
  startedAt: number,
): Promise<void> {
  const at = () => Math.random() * plan.windowMs;
  const note = (what: string) => {
    log.push({ at: Date.now() - startedAt, what, inFlight: targets.inFlight() });
  };
  const sleepUntil = (ms: number) => delay(Math.max(0, startedAt + ms - Date.now()));

  const kills = Array.from({ length: plan.kills }, at)
    .sort((a, b) => a - b)
    .map(async (when) => {
      await sleepUntil(when);
      const running = targets.system.processes();
      if (running.length === 0) return note('SIGKILL skipped: no process running');
      const victim = running[Math.floor(Math.random() * running.length)]!;
      try {
        process.kill(victim.pid, 'SIGKILL');
        note(`SIGKILL ${victim.label} (pid ${victim.pid})`);
      } catch (error) {
        note(`SIGKILL ${victim.label} failed: ${String(error)}`);
      }
    });

  const natsRestart = (async () => {
    await sleepUntil(at());
    // A restart, not a crash: a killed server may lose what it had not yet written to its store.
    await targets.nats.stop('SIGTERM');
    note('NATS stopped (SIGTERM) for a restart, store kept');
    await delay(plan.natsDownMs);
    await targets.nats.start();
    note(`NATS started again on its port with the same store, after ${plan.natsDownMs} ms`);
  })();

  const redisOutage = (async () => {
    await sleepUntil(at());
    await targets.redis.stop('SIGKILL');
    note(`Redis killed (SIGKILL): outage of ${plan.redisOutageMs / 1000} s`);
    await delay(plan.redisOutageMs);
    await targets.redis.start();
    note('Redis back (append-only file kept)');
  })();

  const webhook500 = (async () => {
    await sleepUntil(at());
    const previous = targets.receiver.answer;
    targets.receiver.answer = () => 500;
    note(`webhook receiver answers 500 for ${plan.webhook500Ms / 1000} s`);
    await delay(plan.webhook500Ms);
    targets.receiver.answer = previous;
    note('webhook receiver answers 200 again');
  })();

  await Promise.all([...kills, natsRestart, redisOutage, webhook500]);
}
