import { describeDoubledStack } from './stack-doubled';

/** The doubled stack on a Redis Cluster of three masters, a replica each (issue 33); the workload and checks are in stack-doubled.ts. */
describeDoubledStack('cluster');
