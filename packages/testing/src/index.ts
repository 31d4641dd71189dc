export * from './spawn-service';
export * from './eventually';
