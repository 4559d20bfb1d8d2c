/** @type {import('jest').Config} */
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    keepClassNames: true,
    target: 'es2022',
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  setupFiles: ['reflect-metadata'],
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  // `npx jest --coverage`: every source file counts, also those no test loads in-process.
  collectCoverageFrom: ['src/**/*.ts', '!src/**/*.d.ts'],
  coverageReporters: ['text-summary', 'json-summary'],
  testSequencer: '<rootDir>/jest.sequencer.config.js',
  testTimeout: 30000,
  // Three workers on this 2-core machine: the files wait on PostgreSQL, spawned servers and Chromium
  // often enough that a third fills the gaps (npm test 125 -> 115 s wall, same CPU); each file's
  // pools stay small, so the run stays far below PostgreSQL's default 100 connections.
  maxWorkers: 3,
};
