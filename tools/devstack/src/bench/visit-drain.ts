/**
 * When is a visit done? Its answer comes once tracking's intake queue holds it; the referral is
 * written, and its `referral.created` published, by the intake consumer afterwards. A visits
 * window that closed at the last answer would leave that write-behind off the clock, so the
 * bench closes it only when, counted from a snapshot taken before the load:
 *  - the referrals collection of tracking holds every accepted visit (the 2xx answers);
 *  - the `EVT_TRACKING` stream holds a `referral.created` for each (its per-subject count);
 *  - the intake queue (`TRACKING_INTAKE`, a work queue: a message leaves once its referral is
 *    written and published) is empty.
 * The counts are read through the database's `count` command on the whole collection and the
 * JetStream API's stream info, so probing costs neither side a scan.
 */
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import mongoose from 'mongoose';
import { setTimeout as delay } from 'node:timers/promises';

const EVENTS_STREAM = 'EVT_TRACKING';
const CREATED_SUBJECT = 'evt.referral.created';
const INTAKE_STREAM = 'TRACKING_INTAKE';

export interface VisitCounts {
  referrals: number;
  createdEvents: number;
  queued: number;
}

export class VisitDrainProbe {
  private constructor(
    private readonly db: mongoose.Connection,
    private readonly nc: NatsConnection,
  ) {}

  static async open(mongoUrl: string, natsUrl: string): Promise<VisitDrainProbe> {
    const db = await mongoose.createConnection(mongoUrl, { dbName: 'tracking' }).asPromise();
    const nc = await connect({ servers: natsUrl.split(',') });
    return new VisitDrainProbe(db, nc);
  }

  async counts(): Promise<VisitCounts> {
    const [referrals, events, intake] = await Promise.all([
      this.db.collection('referrals').estimatedDocumentCount(),
      this.streamInfo(EVENTS_STREAM, CREATED_SUBJECT),
      this.streamInfo(INTAKE_STREAM),
    ]);
    return {
      referrals,
      createdEvents: events.state.subjects?.[CREATED_SUBJECT] ?? 0,
      queued: intake.state.messages,
    };
  }

  /** Resolves when `accepted` visits past `from` are written and published; throws after the timeout. */
  async waitForDrain(from: VisitCounts, accepted: number, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const now = await this.counts();
      const written = now.referrals - from.referrals;
      const published = now.createdEvents - from.createdEvents;
      if (written >= accepted && published >= accepted && now.queued === 0) return;
      if (Date.now() > deadline) {
        throw new Error(
          `visits not drained within ${timeoutMs} ms: ${written} written, ${published} published, ${now.queued} queued of ${accepted}`,
        );
      }
      await delay(100);
    }
  }

  async close(): Promise<void> {
    await this.nc.close();
    await this.db.close();
  }

  private async streamInfo(
    stream: string,
    subjectsFilter?: string,
  ): Promise<{ state: { messages: number; subjects?: Record<string, number> } }> {
    const request = subjectsFilter ? { subjects_filter: subjectsFilter } : {};
    const reply = await this.nc.request(`$JS.API.STREAM.INFO.${stream}`, JSON.stringify(request), {
      timeout: 5_000,
    });
    const info = reply.json<{
      state?: { messages: number; subjects?: Record<string, number> };
      error?: { description: string };
    }>();
    if (!info.state) throw new Error(`stream ${stream}: ${info.error?.description ?? 'no state'}`);
    return { state: info.state };
  }
}
