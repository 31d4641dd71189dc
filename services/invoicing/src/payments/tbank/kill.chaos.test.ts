import { TBankEmulator } from '@pay/tbank-emulator';
import { apiClient, eventually, killHard, startChaosStack, untilAnswered } from '@pay/testing';
import { invoiceIdsOnStack } from '../../../test/invoices/store';
import { newMerchantIn } from '../../../test/test-support';

const TERMINAL = 'ChaosTerminalDEMO';
const PASSWORD = 'chaos-password';

/**
 * A live invoice's create is killed (SIGKILL) after T-Bank has answered Init and while its
 * GetQr is answered but not yet received: the acquirer holds a payment, our database no
 * invoice. The merchant retries with the same Idempotency-Key against a new process: one
 * invoice, and the acquirer still has one payment for it.
 */
it('a kill between the acquirer’s answer and our commit: the retry with the same Idempotency-Key gives one invoice and one acquirer payment', async () => {
  const emulator = new TBankEmulator({ terminals: { [TERMINAL]: PASSWORD } });
  await emulator.start();
  const stack = await startChaosStack('tbank-kill');
  try {
    const env = { LIVE_PAYMENT_PROVIDER: 'tbank', TBANK_API_URL: emulator.apiUrl, TBANK_TERMINAL_KEY: TERMINAL, TBANK_PASSWORD: PASSWORD };
    let svc = await stack.spawn('invoicing', env);
    const merchant = await newMerchantIn(stack.postgres.url);
    const client = apiClient(() => svc.url, { ...merchant, apiKey: merchant.liveKey }, 'v2');
    const key = 'kill-after-acquirer-answer';
    const create = () => client.signed('POST', '/api/v2/invoices', { amount: 432.1, customerEmail: 'payer@example.ru' }, { 'Idempotency-Key': key });

    emulator.faults.holdAnswer.add('GetQr');
    const cut = create();
    await eventually(() => expect(emulator.held).toHaveLength(1), 20_000);
    expect(emulator.payments.size).toBe(1); // Init answered: the acquirer has its payment
    await killHard(svc);
    expect((await cut).status).toBe(0); // the connection died with the process
    emulator.releaseHeld();
    expect(await invoiceIdsOnStack(stack)).toHaveLength(0);

    svc = await stack.spawn('invoicing', env);
    const { answer } = await untilAnswered(create, 60_000);
    expect(answer.status).toBe(201);
    const invoices = await invoiceIdsOnStack(stack, key);
    expect(invoices).toHaveLength(1);
    expect((answer.body as { invoice: { id: string } }).invoice.id).toBe(invoices[0]);
    expect(emulator.paymentsOfOrder(invoices[0]!).map((p) => p.status)).toEqual(['NEW']);
    expect(emulator.payments.size).toBe(1);
  } finally {
    await stack.close();
    await emulator.stop();
  }
}, 180_000);
