export * from './money';
export * from './json-decimal';
