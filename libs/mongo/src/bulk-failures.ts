/**
 * The outcome of each operation of a failed unordered bulk write: an `Error` carrying the
 * driver's code where the server reported one for that index, `undefined` where the operation
 * went through. Rethrows anything that is not a per-operation failure (a lost connection).
 */
export function failuresByIndex(error: unknown, count: number): (undefined | Error)[] {
  const writeErrors = (
    error as { writeErrors?: { index: number; code: number; errmsg?: string }[] }
  ).writeErrors;
  if (!Array.isArray(writeErrors)) throw error;
  const results: (undefined | Error)[] = Array.from({ length: count }, () => undefined);
  for (const failure of writeErrors) {
    results[failure.index] = Object.assign(new Error(failure.errmsg ?? 'write failed'), {
      code: failure.code,
    });
  }
  return results;
}
