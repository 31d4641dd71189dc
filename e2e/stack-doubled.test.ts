import { describeDoubledStack } from './stack-doubled';

/** The doubled stack on one Postgres server and one Redis server (issue 12); the workload and checks are in stack-doubled.ts. */
describeDoubledStack('direct');
