import { TBankEmulator } from '@pay/tbank-emulator';
import { ReceiptReaders } from '../src/receipts/readers';
import { newMerchant, startListeningInvoicingApp, type TestMerchant } from './test-support';

/**
 * A live merchant's invoicing app whose acquirer is T-Bank's protocol emulator on loopback (one
 * terminal per suite), with a receipt reader: the setup of the suites that follow live money
 * through the acquirer. The emulator retries its notifications quickly; the reconciler asks
 * about every open payment at once (TBANK_RECONCILE_AFTER_MS 0).
 */
export function liveTBankSuite(terminal: string, password: string) {
  const emulator = new TBankEmulator({ terminals: { [terminal]: password }, retryDelaysMs: [100, 200, 400, 800, 1600, 3200] });
  const readers = new ReceiptReaders({ rusTrainedData: '/usr/share/tesseract-ocr/5/tessdata/rus.traineddata' });
  let ctx: Awaited<ReturnType<typeof startListeningInvoicingApp>> | undefined;
  return {
    emulator,
    readers,
    async start(): Promise<{ ctx: Awaited<ReturnType<typeof startListeningInvoicingApp>>; m: TestMerchant }> {
      await emulator.start();
      ctx = await startListeningInvoicingApp({
        env: { LIVE_PAYMENT_PROVIDER: 'tbank', TBANK_API_URL: emulator.apiUrl, TBANK_TERMINAL_KEY: terminal, TBANK_PASSWORD: password, TBANK_TIMEOUT_MS: '3000', TBANK_RECONCILE_AFTER_MS: '0' },
      });
      return { ctx, m: await newMerchant(ctx.deps, 'live') };
    },
    async stop(): Promise<void> {
      await ctx?.close();
      await emulator.stop();
      await readers.close();
    },
  };
}
