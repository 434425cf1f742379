/**
 * One jest run for everything: unit tests of pure pieces, component tests of each service over
 * real NATS and MongoDB, and end-to-end journeys through the real gateway. The global setup
 * starts real servers (or uses MONGO_URL / NATS_URL / REDIS_URL) and the whole system once.
 */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
  },
  // Dev tooling lives under tools/, the runtime libraries under libs/; the first match wins.
  moduleNameMapper: {
    '^@aff/devstack$': '<rootDir>/tools/devstack/src',
    '^@aff/(.*)$': '<rootDir>/libs/$1/src',
  },
  testMatch: [
    '<rootDir>/libs/*/test/**/*.test.ts',
    '<rootDir>/services/*/test/**/*.test.ts',
    '<rootDir>/tools/*/test/**/*.test.ts',
    '<rootDir>/test/**/*.test.ts',
  ],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/support/stop-leftover-systems.ts'],
  testTimeout: 60_000,
  maxWorkers: 2,
};
