/** A network watcher's cursor, lease and recent block hashes (its statements are in cursor-store.ts). */
export { WatchCursor } from './cursor-store';
