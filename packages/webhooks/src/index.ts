export * from './db';
export * from './events';
export * from './schedule';
export * from './signing';
export * from './payloads';
export * from './endpoints';
export * from './deliveries';
export * from './store';
