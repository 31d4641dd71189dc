export * from './emulator';
export { acquirerToken } from './token';
