/**
 * The rules of the kept top-affiliates list (data/top-affiliates.ts): the order, the merge of
 * what was read, and which counter rows cannot change the list. They rely on two facts of this
 * service: an affiliate's `conversions` only ever rises (tracking's absolute counts applied with
 * `$max`; nothing lowers it, not a review's rejection, a deactivated referral or a change of
 * state) and an affiliate is never deleted. So an affiliate that left the list can come back
 * only by rising past the entry that keeps the K-th place, which itself only rises.
 */

/** How many affiliates the list keeps per merchant: the most `getProgramStats` may ask for. */
export const TOP_KEPT = 20;

/** One affiliate's place: most conversions first, then the newest, then the greater id. */
export interface TopEntry {
  id: string;
  conversions: number;
  created_at: Date;
}

/** The same order as the sorted read `{conversions: -1, created_at: -1, _id: -1}`. */
export function compareTop(a: TopEntry, b: TopEntry): number {
  return (
    b.conversions - a.conversions ||
    b.created_at.getTime() - a.created_at.getTime() ||
    (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)
  );
}

/**
 * The kept entries with what was read merged in: one entry per affiliate (the higher count of
 * the two: every figure read is one the affiliate had, and it only rises), affiliates without a
 * conversion left out (the list answers only while it holds `top` converting ones), the first
 * `keep` in order. Merging the same reads again gives the same list.
 */
export function mergeTop(kept: TopEntry[], read: TopEntry[], keep: number): TopEntry[] {
  const byId = new Map<string, TopEntry>();
  for (const entry of [...kept, ...read]) {
    if (entry.conversions <= 0) continue;
    const held = byId.get(entry.id);
    if (!held || entry.conversions > held.conversions) byId.set(entry.id, entry);
  }
  return [...byId.values()].sort(compareTop).slice(0, keep);
}

export function sameTop(a: TopEntry[], b: TopEntry[]): boolean {
  return (
    a.length === b.length &&
    a.every((e, i) => e.id === b[i]!.id && e.conversions === b[i]!.conversions)
  );
}

/** What a process remembers of a merchant's list from its last read or write of it. */
export interface TopMemo {
  /** The counts the list held (each at most the affiliate's true count). */
  known: Map<string, number>;
  /** The conversions of the K-th entry when the list was full, else null. */
  floor: number | null;
  /**
   * Affiliates merged and left out, with the count they were left out at: a full list of
   * affiliates that each beat it, and who only rise, keeps it out until it counts more. Spares
   * the long tail tied with the K-th entry a read per batch.
   */
  out: Map<string, number>;
}

/** Affiliates remembered as left out, per merchant, before the memory starts again. */
const OUT_KEPT = 5_000;

export function memoOf(top: TopEntry[], keep: number, before?: TopMemo): TopMemo {
  const out = before && before.out.size < OUT_KEPT ? before.out : new Map<string, number>();
  for (const e of top) out.delete(e.id);
  return {
    known: new Map(top.map((e) => [e.id, e.conversions])),
    floor: top.length >= keep ? top[keep - 1]!.conversions : null,
    out,
  };
}

/** Remembers the merged affiliates that the list, as written, left out. */
export function rememberOut(memo: TopMemo, merged: TopEntry[], top: TopEntry[]): void {
  const kept = new Set(top.map((e) => e.id));
  for (const e of merged) if (!kept.has(e.id)) memo.out.set(e.id, e.conversions);
}

/**
 * The ids of counter rows that may change the list. A memo may be old, never ahead: its counts
 * only lag the list's, so a row it rules out is ruled out by the list too. A row is out when
 * the affiliate has no conversion, when the list already held at least that count for it, when
 * the list was full and the count is below its K-th (a tie on the count is decided by the
 * dates, which only the database has, so it stays in), or when the affiliate was left out at
 * that count or more.
 */
export function mayChangeTop(
  rows: { id: string; conversions?: number }[],
  memo: TopMemo | undefined,
): string[] {
  const ids = new Set<string>();
  for (const { id, conversions = 0 } of rows) {
    if (conversions <= 0) continue;
    if (memo && (memo.known.get(id) ?? -1) >= conversions) continue;
    if (memo?.floor != null && conversions < memo.floor) continue;
    if (memo && (memo.out.get(id) ?? -1) >= conversions) continue;
    ids.add(id);
  }
  return [...ids];
}
