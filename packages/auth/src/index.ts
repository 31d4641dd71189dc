export * from './types';
export * from './api-keys';
export * from './secret-box';
export * from './signing';
export * from './redis-gate';
export * from './replay-guard';
export * from './rate-limit';
export * from './middleware';
