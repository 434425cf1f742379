/**
 * Rules of webhook endpoints beyond the contract map's body schemas (which check URLs and event
 * lists before the handler runs): the private-address rule, which depends on configuration, and
 * which endpoints an event type goes to.
 */
import { ALL_EVENTS, PUBLIC_EVENT_TYPES } from '@aff/contracts';
import { PRIVATE_TARGET_MESSAGE, isPrivateAddress, literalAddress } from './address-policy';

export { ALL_EVENTS };
const KNOWN_TYPES: ReadonlySet<string> = new Set(PUBLIC_EVENT_TYPES);

/**
 * Why a (checked, absolute http(s)) URL may not be a target, or null. Host names are checked
 * when they are resolved, at every delivery; IP literals right away, unless private targets are
 * allowed (`WEBHOOK_ALLOW_PRIVATE_TARGETS`, for local receivers).
 */
export function targetProblem(url: string, allowPrivateTargets: boolean): string | null {
  if (allowPrivateTargets) return null;
  const address = literalAddress(new URL(url).hostname);
  return address !== null && isPrivateAddress(address) ? PRIVATE_TARGET_MESSAGE : null;
}

/** The filter values an endpoint matches for an event type. */
export function subscriptionKeys(eventType: string): string[] {
  return [eventType, ALL_EVENTS];
}

export function isPublicEventType(type: string): boolean {
  return KNOWN_TYPES.has(type);
}
