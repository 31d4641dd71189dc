export * from './spawn-service';
export * from './eventually';
export * from './service-process';
export * from './browser';
export * from './redis';
export * from './webhook-receiver';
export * from './throwaway';
export * from './fuzz';
