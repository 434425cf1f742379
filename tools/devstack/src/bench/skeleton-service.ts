/**
 * Bench baseline (visits): the service half of the design's visit path with nothing but its
 * mandated parts. It answers a NATS request on a queue group by writing one referral-shaped
 * document, then replies with its id. No catalog, no events, no telemetry (see
 * skeleton-gateway.ts for what the pair measures).
 */
import type { Msg } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import mongoose from 'mongoose';
import { referralShaped } from './raw-insert';
import { SKELETON_SUBJECT } from './skeleton-subject';

// argv[2] is the port every bench baseline is given; this one listens on NATS only.
const [natsUrl, mongoUrl] = process.argv.slice(3);

async function main(): Promise<void> {
  const nc = await connect({ servers: natsUrl!.split(',') });
  const connection = await mongoose
    .createConnection(mongoUrl!, { dbName: 'bench_skeleton', maxPoolSize: 40 })
    .asPromise();
  const referrals = connection.collection('referrals');
  nc.subscribe(SKELETON_SUBJECT, {
    queue: 'skeleton',
    callback: (error: Error | null, msg: Msg) => {
      if (error) return;
      const visit = JSON.parse(new TextDecoder().decode(msg.data)) as {
        key: string;
        token: string;
      };
      const referral = { ...referralShaped(), merchant_id: visit.key, link_id: visit.token };
      void referrals.insertOne(referral).then(
        () => msg.respond(JSON.stringify({ referral: { id: referral._id } })),
        // An empty reply: the skeleton gateway answers 503.
        () => msg.respond(),
      );
    },
  });
  await nc.flush();
  process.send?.('ready');
}

void main();
