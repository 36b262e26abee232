#!/usr/bin/env node
/**
 * Compiles the embedded chain's stablecoin (contracts/EvidenceRoomTestDollar.sol, OpenZeppelin's
 * ERC-20 from node_modules) with the Solidity compiler from npm (`solc`, offline) and writes
 * src-main/anchor/stablecoin-artifact.json: the ABI, the creation bytecode, and what made them
 * (compiler version, OpenZeppelin version, settings, SHA-256 of every source).
 *
 * The same inputs give the same bytes: scripts/build-stablecoin.test.ts compiles again and
 * compares with the committed file. `--check` compares without writing (exit 1 on a difference).
 *
 * Usage: node scripts/build-stablecoin.mjs [--check]
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPOSITORY = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = 'contracts/EvidenceRoomTestDollar.sol';
const CONTRACT = 'EvidenceRoomTestDollar';
export const ARTIFACT = 'src-main/anchor/stablecoin-artifact.json';
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  // Cancun: what today's EVM chains (Ethereum, Base, anvil) all run; newer opcodes are not needed.
  evmVersion: 'cancun',
  metadata: { bytecodeHash: 'ipfs' },
  outputSelection: { [SOURCE]: { [CONTRACT]: ['abi', 'evm.bytecode.object'] } },
};

const require = createRequire(import.meta.url);

function sha256(text) {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Resolves an import the way Solidity's remapping-free npm layout does: from node_modules. */
function findImport(importPath) {
  try {
    return { contents: readFileSync(require.resolve(importPath), 'utf8') };
  } catch {
    return { error: `File not found: ${importPath}` };
  }
}

/** Compiles and returns the artifact as text (stable key order, a final newline). */
export function compileStablecoin() {
  const solc = require('solc');
  const input = {
    language: 'Solidity',
    sources: { [SOURCE]: { content: readFileSync(join(REPOSITORY, SOURCE), 'utf8') } },
    settings: SETTINGS,
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport }));
  const errors = (output.errors ?? []).filter((entry) => entry.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((entry) => entry.formattedMessage).join('\n'));
  const compiled = output.contracts[SOURCE][CONTRACT];
  const sources = Object.keys(output.sources)
    .sort()
    .map((name) => ({
      path: name,
      sha256: sha256(name === SOURCE ? input.sources[SOURCE].content : findImport(name).contents),
    }));
  const artifact = {
    contract: CONTRACT,
    source: SOURCE,
    compiler: `solc ${solc.version()}`,
    openzeppelin: JSON.parse(readFileSync(require.resolve('@openzeppelin/contracts/package.json'), 'utf8')).version,
    settings: { optimizer: SETTINGS.optimizer, evmVersion: SETTINGS.evmVersion },
    sources,
    abi: compiled.abi,
    bytecode: `0x${compiled.evm.bytecode.object}`,
  };
  return `${JSON.stringify(artifact, null, 2)}\n`;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const unknown = process.argv.slice(2).filter((argument) => argument !== '--check');
  if (unknown.length > 0) {
    process.stderr.write(
      `build-stablecoin: unknown argument "${unknown[0]}" (usage: build-stablecoin.mjs [--check])\n`,
    );
    process.exit(2);
  }
  const text = compileStablecoin();
  const target = join(REPOSITORY, ARTIFACT);
  if (check) {
    let committed = '';
    try {
      committed = readFileSync(target, 'utf8');
    } catch {
      // Missing: a difference.
    }
    if (committed !== text) {
      process.stderr.write(
        `build-stablecoin: ${ARTIFACT} differs from a fresh compile; run node scripts/build-stablecoin.mjs\n`,
      );
      process.exit(1);
    }
    process.stdout.write(`${ARTIFACT} matches a fresh compile\n`);
  } else {
    writeFileSync(target, text);
    process.stdout.write(`wrote ${ARTIFACT}\n`);
  }
}
