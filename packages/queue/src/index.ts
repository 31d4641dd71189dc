export * from './jobs';
export * from './worker';
export * from './outbox';
export * from './wakes';
