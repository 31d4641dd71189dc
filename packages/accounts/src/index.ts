export * from './db';
export * from './merchants';
export * from './api-keys';
export * from './key-resolver';
export * from './guards';
export * from './key-cache';
export * from './console-sessions';
export * from './brand';
