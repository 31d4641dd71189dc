import { TBankEmulator } from './emulator';

/**
 * The emulator as a process, for `scripts/stack.sh --tbank-emulator`: one terminal
 * (TBANK_TERMINAL_KEY / TBANK_PASSWORD) on TBANK_EMULATOR_PORT (default 3004).
 */
async function main() {
  const terminal = process.env.TBANK_TERMINAL_KEY ?? 'EmulatorTerminalDEMO';
  const password = process.env.TBANK_PASSWORD ?? 'emulator-password';
  const port = Number(process.env.TBANK_EMULATOR_PORT ?? 3004);
  const emulator = new TBankEmulator({ terminals: { [terminal]: password }, retryDelaysMs: [1000, 5000, 15_000, 60_000, 300_000] });
  const url = await emulator.start(port, process.env.TBANK_EMULATOR_HOST ?? '127.0.0.1');
  console.log(JSON.stringify({ msg: 'tbank emulator listening', apiUrl: `${url}/v2`, terminalKey: terminal, control: `${url}/control/payments` }));
  const stop = () => void emulator.stop().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

void main();
