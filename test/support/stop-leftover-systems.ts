/**
 * After each test file: no isolated system it started outlives it (see isolated-system.ts). Only
 * files that import isolated-system.ts have a sweep, so the others load nothing more.
 */
import type { LeftoverSweep } from './isolated-system';

// Long enough for a start that a timed-out `beforeAll` left running to finish, then stop.
afterAll(() => (globalThis as LeftoverSweep).stopLeftoverIsolatedSystems?.(), 180_000);
