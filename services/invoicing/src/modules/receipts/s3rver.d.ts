/** The part of s3rver (a dev dependency, no types of its own) the storage test uses. */
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';
  export default class S3rver {
    constructor(options: { port: number; address: string; directory: string; silent?: boolean; configureBuckets?: { name: string; configs: unknown[] }[] });
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
