export * from './db';
export * from './events';
export * from './schedule';
export * from './signing';
export * from './catalogue';
export * from './endpoints';
export * from './deliveries';
export * from './store';
