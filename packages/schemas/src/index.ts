export * from './errors';
export * from './ajv';
export * from './common';
export * from './money-input';
export * from './day-input';
