export * from './jobs';
export * from './worker';
export * from './outbox';
