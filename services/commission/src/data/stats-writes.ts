/**
 * Commission and sale writes that move `commission_stats`, each under a reservation (see
 * stats-tally.ts). A record carries `stats_marks` from the write that first counted it: every
 * new record (its insert), or, for a record written before the stats were kept, its first
 * change or the backfill (stats-backfill.ts), whichever writes first; a record without the
 * field has never been counted, so its first counted write adds all of it.
 */
import type { FilterQuery, UpdateQuery } from 'mongoose';
import { AppError } from '@aff/api';
import type { EventEnvelope } from '@aff/contracts';
import type { EventContext } from '@aff/messaging';
import type { StoredPendingEvent, TenantRepository } from '@aff/mongo';
import { ZERO_STATS, difference, type StatVector } from '../domain/commission-stats';
import type { RecordKind } from './commission-stats.schema';
import type { StatsTally } from './stats-tally';

/** What a counted record has, whichever collection it is in. */
export interface CountedDoc {
  _id: string;
  merchant_id: string;
  affiliate_id: string;
  currency: string;
  created_at: Date;
  updated_at: Date;
  pending_events: StoredPendingEvent[];
  /** The reservations it was written under (absent: never counted). */
  stats_marks?: string[];
}

type Figures<T> = (record: T | null) => StatVector;

/** Told when a reservation could not be settled after its write (the sweep settles it). */
export type OnSettleFailed = (error: unknown) => void;

/**
 * The `countBatch` of a counted collection's `TenantRepository`: the batch's figures are
 * reserved before its `insertMany`, each new record carries the reservation's id in its own
 * insert, and once the batch is written the reservation is settled with what it inserted (a
 * duplicate, say a redelivered charge, adds nothing).
 */
export function countInserts<T extends CountedDoc>(
  stats: StatsTally,
  kind: RecordKind,
  figures: Figures<T>,
) {
  return async (docs: T[]) => {
    const reservation = await stats.reserve(
      docs.map((doc) => ({
        merchantId: doc.merchant_id,
        affiliateId: doc.affiliate_id,
        kind,
        recordId: doc._id,
        currency: doc.currency,
        delta: figures(doc),
      })),
    );
    // Counted from its insert on, with or without figures (the backfill leaves it alone).
    for (const doc of docs) doc.stats_marks = reservation ? [reservation.id] : [];
    if (!reservation) return null;
    return async (inserted: T[]) => {
      const ids = new Set(inserted.map((doc) => doc._id));
      await reservation.settle((_, id) => ids.has(id));
    };
  };
}

/** Concurrent writers of one record: decide again on the newer version, this many times. */
const ATTEMPTS = 8;

export interface CountedChange<T extends CountedDoc> {
  stats: StatsTally;
  kind: RecordKind;
  tenant: TenantRepository<T>;
  figures: Figures<T>;
  merchantId: string;
  id: string;
  /** The caller's condition, checked on the version read (the write is pinned to it). */
  allows: (before: T) => boolean;
  changes: Partial<T>;
  events: EventEnvelope[];
  context: EventContext;
  onSettleFailed: OnSettleFailed;
}

/**
 * Applies `changes` to the record while `allows` holds: reads it, reserves what the change adds
 * (after − before; all of after for a record never counted), writes conditional on the version
 * read (and on its never having been counted, if so) with the reservation's mark, and settles.
 * A write that lost to another writer is decided again on the newer version. Null when the
 * record is missing or `allows` no longer holds.
 */
export async function changeCounted<T extends CountedDoc>(c: CountedChange<T>): Promise<T | null> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const before = await c.tenant.findById(c.merchantId, c.id);
    if (!before || !c.allows(before)) return null;
    // Versions strictly increase, so a write pinned to one version never lands on another.
    const previous = new Date(before.updated_at).getTime();
    const wanted = c.changes.updated_at ? new Date(c.changes.updated_at).getTime() : previous + 1;
    const changes = { ...c.changes, updated_at: new Date(Math.max(wanted, previous + 1)) };
    const counted = before.stats_marks !== undefined;
    const after = { ...before, ...changes } as T;
    const reservation = await c.stats.reserve([
      {
        merchantId: c.merchantId,
        affiliateId: before.affiliate_id,
        kind: c.kind,
        recordId: c.id,
        currency: before.currency,
        delta: difference(c.figures(after), counted ? c.figures(before) : [...ZERO_STATS]),
      },
    ]);
    const pin = {
      updated_at: before.updated_at,
      ...(counted ? {} : { stats_marks: { $exists: false } }),
    } as FilterQuery<T>;
    const update = (
      reservation
        ? { $set: changes, $push: { stats_marks: reservation.id } }
        : { $set: counted ? changes : { ...changes, stats_marks: [] } }
    ) as UpdateQuery<T>;
    // A write that throws may have landed: its reservation is left to the sweep.
    const result = await c.tenant.updateIf(c.merchantId, c.id, pin, update, c.events, c.context);
    await reservation?.settle(() => result !== null).catch(c.onSettleFailed);
    if (result) return result.record;
  }
  throw new AppError('unavailable', `Record ${c.id} is changing too often; try again`);
}
