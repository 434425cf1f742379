/**
 * What every service's repositories speak to its domain in, whatever the database: a page of
 * plain records, and the error a write that collides with a unique key throws. Repositories turn
 * the driver's duplicate-key error into `DuplicateError`, so domain code never sees a driver error.
 */

export interface Page<T> {
  items: T[];
  total: number;
}

/** A write collided with a unique key (an id, an e-mail, a token or a code already taken). */
export class DuplicateError extends Error {
  constructor(what: string) {
    super(`${what} already exists`);
    this.name = 'DuplicateError';
  }
}
