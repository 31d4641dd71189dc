export * from './db';
export * from './events';
