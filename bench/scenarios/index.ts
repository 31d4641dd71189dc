import type { AnySuite } from '../lib/types';
import { cryptoSuite } from './crypto';
import { invoicingSuite } from './invoicing';

/** Every suite, in the order the bench runs them. Register a new scenario file here (one line). */
export const suites: AnySuite[] = [
  cryptoSuite,
  invoicingSuite,
];
