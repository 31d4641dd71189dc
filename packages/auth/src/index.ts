export * from './types';
export * from './api-keys';
export * from './secret-box';
export * from './signing';
export * from './replay-guard';
export * from './middleware';
