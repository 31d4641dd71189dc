/**
 * Compiles src/chains/evm/devnet-token.sol into devnet-token.json (ABI and bytecode), offline,
 * with solc-js and OpenZeppelin's sources from node_modules: `pnpm --filter @pay/crypto devnet:token`.
 * The devnet deploys the committed JSON, so tests need no compiler.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const solc = require('solc');

const dir = path.join(__dirname, '..', 'src', 'chains', 'evm');
const input = {
  language: 'Solidity',
  sources: { 'devnet-token.sol': { content: readFileSync(path.join(dir, 'devnet-token.sol'), 'utf8') } },
  // paris: no opcode newer than every devnet node knows.
  settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'paris', outputSelection: { '*': { DevnetToken: ['abi', 'evm.bytecode.object'] } } },
};
const findImports = (p: string) => {
  try {
    return { contents: readFileSync(require.resolve(p), 'utf8') };
  } catch {
    return { error: `not found: ${p}` };
  }
};
const out = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
const c = out.contracts['devnet-token.sol'].DevnetToken;
writeFileSync(
  path.join(dir, 'devnet-token.json'),
  JSON.stringify({ contractName: 'DevnetToken', compiler: `solc ${solc.version()}`, abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` }) + '\n',
);
console.log(`devnet-token.json written (${c.evm.bytecode.object.length / 2} bytes of bytecode)`);
