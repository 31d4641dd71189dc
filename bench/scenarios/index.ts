import type { AnySuite, MeasuredSuite } from '../lib/types';
import { batchSuite } from './batch';
import { cryptoSuite } from './crypto';
import { invoicingSuite } from './invoicing';

/** Every suite, in the order the bench runs them. Register a new scenario file here (one line). */
export const suites: AnySuite[] = [
  cryptoSuite,
  invoicingSuite,
];

/** Suites measured by their own code (not by load), run after the others. */
export const measuredSuites: MeasuredSuite[] = [batchSuite];
