/** One jest run over every package and service; tests sit beside the code as *.test.ts. */
module.exports = {
  // Node, stopping what a file left running when it ends (packages/testing/src/file-end.ts).
  testEnvironment: '<rootDir>/jest/environment.ts',
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // e2e/: tests across services, each on Postgres and Redis servers of its own.
  testMatch: ['<rootDir>/{services,packages}/*/src/**/*.test.ts', '<rootDir>/scripts/**/*.test.ts', '<rootDir>/infra/**/*.test.ts', '<rootDir>/e2e/**/*.test.ts', '<rootDir>/bench/**/*.test.ts'],
  setupFiles: ['<rootDir>/jest/env.ts'],
  globalSetup: '<rootDir>/jest/global-setup.ts',
  reporters: ['default', '<rootDir>/jest/summary-reporter.js'],
  testTimeout: 30000,
  maxWorkers: require('./jest/max-workers'),
};
