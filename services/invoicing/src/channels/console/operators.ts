import type { InvoicingConfig } from '../../config';

/** Where the queue dashboard is mounted: the console's pages link to it for operators. */
export const QUEUES_PATH = '/console/queues';

/** Merchants whose console sessions may open the queue dashboard (CONSOLE_OPERATORS). */
export function isOperator(deps: { config: Pick<InvoicingConfig, 'CONSOLE_OPERATORS'> }, merchantId: string): boolean {
  return deps.config.CONSOLE_OPERATORS.includes(merchantId);
}
