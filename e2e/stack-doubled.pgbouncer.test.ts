import { describeDoubledStack } from './stack-doubled';

/** The doubled stack with every service behind PgBouncer in transaction pooling (issue 33); the workload and checks are in stack-doubled.ts. */
describeDoubledStack('pgbouncer');
