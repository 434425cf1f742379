/**
 * The visit queue's contract (libs/contracts) and tracking's referral record describe the same
 * thing: a field added to one and not the other would be dropped from queued visits, so it fails
 * the build here. Checked by tsc (npm run build), never run by jest.
 */
import type { AcceptedVisitRecord } from '@aff/contracts';
import type { ReferralRecord } from '../src/domain/records';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Keys<T> = keyof T;

export const recordMatchesContract: Same<AcceptedVisitRecord, ReferralRecord> = true;
export const keysMatchContract: Same<Keys<AcceptedVisitRecord>, Keys<ReferralRecord>> = true;

// The check itself can fail: a record with one field more is not the same.
// @ts-expect-error a field the contract lacks
export const extraFieldIsCaught: Same<AcceptedVisitRecord, ReferralRecord & { extra: string }> =
  true;
