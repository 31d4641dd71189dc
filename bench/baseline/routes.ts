import type { BaselineRoute } from './route';
import { cryptoBaselines } from './crypto';
import { invoicingBaselines } from './invoicing';

/** Every bare route, by name. Register a new file's routes here (one line). */
export const baselines = {
  ...cryptoBaselines,
  ...invoicingBaselines,
} satisfies Record<string, BaselineRoute>;

export type BaselineName = keyof typeof baselines;
