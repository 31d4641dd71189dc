import { TBankEmulator } from './emulator';
import { acquirerToken } from './token';

const emulator = new TBankEmulator({ terminals: { T1: 'pw' }, retryDelaysMs: [] });
beforeAll(() => emulator.start());
afterAll(() => emulator.stop());

async function call(method: string, body: Record<string, unknown>, password = 'pw'): Promise<Record<string, unknown>> {
  const res = await fetch(`${emulator.apiUrl}/${method}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...body, Token: acquirerToken(body, password) }) });
  return (await res.json()) as Record<string, unknown>;
}
const due = (ms: number) => `${new Date(Date.now() + ms).toISOString().slice(0, 19)}+00:00`;

describe('the T-Bank emulator, as a client of the documented API sees it', () => {
  it('refuses a request whose Token is not the terminal’s (204) and an unknown terminal (501)', async () => {
    const init = { TerminalKey: 'T1', Amount: 1000, OrderId: 'o-1' };
    expect(await call('Init', init, 'wrong')).toMatchObject({ Success: false, ErrorCode: '204' });
    expect(await call('Init', { ...init, TerminalKey: 'T9' })).toMatchObject({ Success: false, ErrorCode: '501' });
    expect(emulator.payments.size).toBe(0);
  });

  it('Init: kopecks as an integer, RedirectDueDate from one minute to 90 days; then GetState, GetQr, Cancel', async () => {
    expect(await call('Init', { TerminalKey: 'T1', Amount: 10.5, OrderId: 'o-2' })).toMatchObject({ Success: false, ErrorCode: '240' });
    expect(await call('Init', { TerminalKey: 'T1', Amount: 1000, OrderId: 'o-2', RedirectDueDate: due(30_000) })).toMatchObject({ Success: false });
    expect(await call('Init', { TerminalKey: 'T1', Amount: 1000, OrderId: 'o-2', RedirectDueDate: due(91 * 86_400_000) })).toMatchObject({ Success: false });
    const init = await call('Init', { TerminalKey: 'T1', Amount: 1000, OrderId: 'o-2', RedirectDueDate: due(60_000), DATA: { Email: 'a@b.ru' } });
    expect(init).toMatchObject({ Success: true, ErrorCode: '0', Status: 'NEW', Amount: 1000, OrderId: 'o-2' });
    const id = init.PaymentId as string;
    expect(await call('GetState', { TerminalKey: 'T1', PaymentId: id })).toMatchObject({ Status: 'NEW', Amount: 1000 });
    expect(await call('GetQr', { TerminalKey: 'T1', PaymentId: id, DataType: 'PAYLOAD' })).toMatchObject({ Success: true, Data: `${emulator.url}/sbp/${id}` });
    expect(await call('Cancel', { TerminalKey: 'T1', PaymentId: id, Amount: 1 })).toMatchObject({ Success: true, Status: 'CANCELED', OriginalAmount: 1000, NewAmount: 0 });
    expect(await call('Cancel', { TerminalKey: 'T1', PaymentId: id })).toMatchObject({ Success: false, ErrorCode: '8' });
    expect(await call('GetState', { TerminalKey: 'T1', PaymentId: '1' })).toMatchObject({ Success: false, ErrorCode: '255' });
  });
});
