export * from './arbitrary';
export * from './hostile';
export * from './snapshot';
export * from './operations';
export * from './multipart';
