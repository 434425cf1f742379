/**
 * The chaos test's own jest run (`npm run test:chaos`): outside `npm test`'s match (its file
 * ends in `.chaos.ts`), no global system (it starts and faults its own), one test at a time.
 */
const base = require('../../jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
  rootDir: '../..',
  testEnvironment: 'node',
  transform: base.transform,
  moduleNameMapper: base.moduleNameMapper,
  testMatch: ['<rootDir>/test/chaos/**/*.chaos.ts'],
  maxWorkers: 1,
};
