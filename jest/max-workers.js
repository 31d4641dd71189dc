// Shared with jest/test-env.ts: one test database per worker.
module.exports = 2;
