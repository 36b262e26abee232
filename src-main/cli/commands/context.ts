/**
 * `evroom context export|import|list|remove|pin|unpin|pins`: context packs for air-gapped
 * anchor verification (docs/anchoring.md, "Air-gapped verification").
 *
 * - export (online): gathers, for the anchor transactions of the named records, anchors files
 *   or bundles (none: every resolved anchor of the data folder's ledger), the chain's evidence into a zip
 *   signed by this workstation's auditor key. Progress lines go to stderr.
 * - import, list, remove (offline): the packs kept in the data folder, which the app uses.
 * - pin, unpin, pins: block hashes taken from a trusted source, which check a pack's head.
 */
import { existsSync } from 'node:fs';
import type { PinnedBlock } from '../../../src-shared/anchor/context';
import { ed25519FromDidKey } from '../../../src-shared/crypto';
import {
  exportContextPack,
  importContextPack,
  listContextPacks,
  listPinnedBlocks,
  pinBlockHash,
  removeContextPack,
  unpinBlockHash,
} from '../../operations/context';
import { CliError } from '../cli-error';
import { flag, optionValue, parseCommandArguments, type CommandSpec, type ParsedArguments } from '../arguments';
import { writeLine, type Terminal } from '../terminal';
import { withCliWorkspace } from './ledger';

const SUBCOMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  export: ['out', 'rpc', 'force', 'json', 'quiet'],
  import: ['json'],
  list: ['json'],
  remove: ['json'],
  pin: ['note', 'json'],
  unpin: ['json'],
  pins: ['json'],
};

export const contextSpec: CommandSpec = {
  name: 'context',
  summary: 'Context packs: a chain’s evidence for anchors, for an air-gapped workstation',
  usage: [
    'evroom context export --out PACK.zip --rpc URL [--force] [--quiet] [--json] [RECORD.json | ANCHORS.json | BUNDLE.zip ...]',
    '       evroom context import PACK.zip [--json]',
    '       evroom context list [--json]',
    '       evroom context remove PACK_ID [--json]',
    '       evroom context pin CHAIN_ID NUMBER 0xHASH [--note TEXT] [--json]',
    '       evroom context unpin CHAIN_ID NUMBER [--json]',
    '       evroom context pins [--json]',
  ].join('\n'),
  description: [
    'export  (online) gathers from the chain at --rpc, for every anchor transaction the files name',
    '        (anchor records, a bundle’s anchors/<batch_id>.json, or bundles; with none, every',
    '        resolved anchor of this data folder’s ledger; a PostgreSQL service’s anchors are in',
    '        its database: name the tenant’s evidence bundle): its block header, the transaction',
    '        and its receipt, their Merkle-Patricia proofs in the block’s transactions and',
    '        receipts tries, and every header from the lowest such block to the chain’s head;',
    '        plus the trust store and every transparency-log checkpoint this workstation has',
    '        seen (docs/logs.md).',
    '        The zip’s manifest names the RPC, the time and the head, and is signed by this',
    '        workstation’s auditor key. Progress lines go to standard error.',
    'import  (offline) checks a pack whole (signature, files, chain of headers; a progress line',
    '        on standard error every 10,000 headers) and keeps it in the data folder, where the',
    '        app answers anchoring steps 2 and 3 from it; its log checkpoints are recorded as',
    '        seen (a split view with one seen before is reported).',
    'list    the imported packs; remove forgets one.',
    'pin     keeps a block hash you took from a trusted source; a pack whose header of that',
    '        block matches has its head "checked" instead of "claimed"; one that differs fails.',
    'Check a receipt’s anchor with a pack: evroom anchor verify RECEIPT.json RECORD.json --context PACK.zip',
  ],
  options: {
    out: { type: 'string', value: 'FILE', help: 'export: the pack to write (a zip)' },
    rpc: { type: 'string', value: 'URL', help: 'export: the chain’s JSON-RPC (http or https)' },
    force: { type: 'boolean', help: 'export: replace an existing --out file' },
    quiet: { type: 'boolean', help: 'export: no progress lines' },
    note: { type: 'string', value: 'TEXT', help: 'pin: where the hash was taken from' },
    json: { type: 'boolean', help: 'print JSON' },
  },
  exitCodes: [
    '0  done',
    '2  usage or I/O error, a pack refused, the chain unreachable or its answers unusable (nothing written)',
  ],
  examples: [
    'evroom context export --out pack.zip --rpc https://mainnet.base.org bundle.zip',
    'evroom context export --out pack.zip --rpc http://127.0.0.1:8545',
    'evroom context import pack.zip',
    'evroom context pin 8453 23000000 0x5e1f...c0de --note "block explorer, 2026-11-25"',
  ],
};

function checkOptions(sub: string, parsed: ParsedArguments): void {
  const allowed = SUBCOMMAND_OPTIONS[sub] ?? [];
  for (const [name, value] of Object.entries(parsed.values)) {
    if (value === undefined || allowed.includes(name)) continue;
    throw new CliError(
      `context ${sub}: --${name} does not apply here (context ${sub} takes ${allowed.map((option) => `--${option}`).join(', ')}). See: evroom context --help`,
    );
  }
}

function operands(sub: string, parsed: ParsedArguments, names: readonly string[]): string[] {
  if (parsed.positionals.length !== names.length) {
    const given = parsed.positionals.length;
    throw new CliError(
      `context ${sub}: expects ${names.length === 0 ? 'no argument' : names.join(' and ')}, got ${given} argument${given === 1 ? '' : 's'}. See: evroom context --help`,
    );
  }
  return parsed.positionals;
}

function wholeNumber(sub: string, what: string, text: string, min: number): number {
  if (!/^\d{1,16}$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < min)
    throw new CliError(
      `context ${sub}: ${what} must be a whole number${min > 0 ? ` from ${min}` : ''}, not ${JSON.stringify(text)}`,
    );
  return Number(text);
}

/**
 * Checks an http(s) URL given to --rpc.
 *
 * @returns It.
 * @throws CliError otherwise.
 */
export function checkRpcOption(command: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`${command}: --rpc must be an http or https URL, not ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`${command}: --rpc must be an http or https URL, not ${url.protocol}`);
  return value;
}

/**
 * Whether a text is an Ed25519 did:key.
 *
 * @param text - The text.
 * @returns True when it names an Ed25519 key.
 */
export function isEd25519DidKey(text: string): boolean {
  try {
    ed25519FromDidKey(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads `--pin NUMBER:0xHASH` of `anchor verify` (the chain id is the pack's).
 *
 * @param text - The option's value.
 * @returns The block number and hash.
 * @throws CliError for anything else.
 */
export function parsePinOption(text: string): Omit<PinnedBlock, 'chain_id'> {
  const match = /^(\d{1,16}):(0x[0-9a-fA-F]{64})$/.exec(text);
  if (match === null || !Number.isSafeInteger(Number(match[1])))
    throw new CliError(
      `anchor verify: --pin must be NUMBER:0xHASH (a block number and its 32-byte hash from a source you trust), not ${JSON.stringify(text.slice(0, 100))}`,
    );
  return { number: Number(match[1]), hash: (match[2] as string).toLowerCase() };
}

/**
 * Runs `evroom context`.
 *
 * @returns The exit code.
 */
export async function runContext(argv: readonly string[], terminal: Terminal): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== undefined && sub.startsWith('-')) parseCommandArguments(contextSpec, argv);
  const parsed = parseCommandArguments(contextSpec, rest);
  if (sub === undefined)
    throw new CliError(
      'context: name a subcommand: export, import, list, remove, pin, unpin or pins. See: evroom context --help',
    );
  if (SUBCOMMAND_OPTIONS[sub] === undefined)
    throw new CliError(
      `context: unknown subcommand '${sub}'; use export, import, list, remove, pin, unpin or pins. See: evroom context --help`,
    );
  checkOptions(sub, parsed);
  const json = flag(parsed, 'json');
  const print = (value: unknown, human: () => void): void => {
    if (json) writeLine(terminal.out, JSON.stringify(value));
    else human();
  };
  switch (sub) {
    case 'export':
      return runExport(parsed, terminal);
    case 'import': {
      const [file] = operands(sub, parsed, ['PACK.zip']) as [string];
      if (!existsSync(file)) throw new CliError(`context import: ${file}: no such file`);
      const summary = await withCliWorkspace('context import', (workspace) =>
        importContextPack(workspace, file, {
          onProgress: (line) => writeLine(terminal.err, `context import: ${line}`),
        }),
      );
      print(summary, () => {
        writeLine(
          terminal.out,
          `Imported ${summary.pack_id}: ${summary.anchors} anchor transaction${summary.anchors === 1 ? '' : 's'}, head block ${summary.head.number} of chain ${summary.chain_id}`,
        );
        writeLine(terminal.out, `  made ${summary.made_at} from ${summary.rpc}, signed by ${summary.signer}`);
        if (summary.checkpoints > 0)
          writeLine(
            terminal.out,
            `  ${summary.checkpoints} log checkpoint${summary.checkpoints === 1 ? '' : 's'} recorded as seen (evroom log list)`,
          );
        if (summary.log_split_views !== undefined)
          writeLine(
            terminal.out,
            `  SPLIT VIEW: ${summary.log_split_views} of them disagree with a checkpoint seen before (evroom log list)`,
          );
      });
      return 0;
    }
    case 'list': {
      operands(sub, parsed, []);
      const packs = await withCliWorkspace('context list', (workspace) => listContextPacks(workspace));
      print(packs, () => {
        if (packs.length === 0) writeLine(terminal.out, 'No context pack is imported.');
        for (const pack of packs)
          writeLine(
            terminal.out,
            `${pack.pack_id}  chain ${pack.chain_id}  head ${pack.head.number}  ${pack.anchors} anchors  made ${pack.made_at}  signer ${pack.signer}`,
          );
      });
      return 0;
    }
    case 'remove': {
      const [packId] = operands(sub, parsed, ['PACK_ID']) as [string];
      await withCliWorkspace('context remove', (workspace) => removeContextPack(workspace, packId));
      print({ removed: packId }, () => writeLine(terminal.out, `Removed ${packId}.`));
      return 0;
    }
    case 'pin': {
      const [chainText, numberText, hash] = operands(sub, parsed, ['CHAIN_ID', 'NUMBER', '0xHASH']) as [
        string,
        string,
        string,
      ];
      const chainId = wholeNumber(sub, 'CHAIN_ID', chainText, 1);
      const number = wholeNumber(sub, 'NUMBER', numberText, 0);
      const note = optionValue(parsed, 'note');
      const pin = await withCliWorkspace('context pin', (workspace) =>
        pinBlockHash(workspace, { chain_id: chainId, number, hash, ...(note === undefined ? {} : { note }) }),
      );
      print(pin, () => writeLine(terminal.out, `Pinned block ${pin.number} of chain ${pin.chain_id}: ${pin.hash}`));
      return 0;
    }
    case 'unpin': {
      const [chainText, numberText] = operands(sub, parsed, ['CHAIN_ID', 'NUMBER']) as [string, string];
      const which = {
        chain_id: wholeNumber(sub, 'CHAIN_ID', chainText, 1),
        number: wholeNumber(sub, 'NUMBER', numberText, 0),
      };
      await withCliWorkspace('context unpin', (workspace) => unpinBlockHash(workspace, which));
      print({ unpinned: which }, () =>
        writeLine(terminal.out, `Unpinned block ${which.number} of chain ${which.chain_id}.`),
      );
      return 0;
    }
    default: {
      operands(sub, parsed, []);
      const pins = await withCliWorkspace('context pins', (workspace) => listPinnedBlocks(workspace));
      print(pins, () => {
        if (pins.length === 0) writeLine(terminal.out, 'No block hash is pinned.');
        for (const pin of pins)
          writeLine(
            terminal.out,
            `chain ${pin.chain_id}  block ${pin.number}  ${pin.hash}${pin.note === undefined ? '' : `  (${pin.note})`}`,
          );
      });
      return 0;
    }
  }
}

async function runExport(parsed: ParsedArguments, terminal: Terminal): Promise<number> {
  const out = optionValue(parsed, 'out');
  const rpc = optionValue(parsed, 'rpc');
  if (out === undefined) throw new CliError('context export: name the pack to write with --out FILE');
  if (rpc === undefined) throw new CliError('context export: name the chain with --rpc URL (this step runs online)');
  checkRpcOption('context export', rpc);
  if (!out.toLowerCase().endsWith('.zip'))
    throw new CliError(`context export: --out must name a .zip file, not ${JSON.stringify(out)}`);
  const inputs = parsed.positionals;
  for (const input of inputs) {
    if (input === '-') throw new CliError('context export: name files; standard input (-) is not read here');
    if (!existsSync(input)) throw new CliError(`context export: ${input}: no such file`);
  }
  if (existsSync(out) && !flag(parsed, 'force'))
    throw new CliError(`context export: ${out} exists; give --force to replace it`);
  const quiet = flag(parsed, 'quiet');
  const result = await withCliWorkspace('context export', (workspace) =>
    exportContextPack(workspace, {
      out,
      force: flag(parsed, 'force'),
      rpcUrl: rpc,
      inputs,
      ...(quiet ? {} : { onProgress: (line: string) => writeLine(terminal.err, `context export: ${line}`) }),
    }),
  );
  for (const item of result.missing)
    writeLine(terminal.err, `context export: not packed: ${item.tx_hash}: ${item.reason}`);
  if (flag(parsed, 'json')) {
    writeLine(terminal.out, JSON.stringify(result));
    return 0;
  }
  writeLine(terminal.out, `Wrote ${result.out} (${result.pack_id}, ${result.bytes} bytes)`);
  writeLine(terminal.out, `  chain ${result.chain_id}, head block ${result.head.number} ${result.head.hash}`);
  writeLine(
    terminal.out,
    `  ${result.anchors} anchor transaction${result.anchors === 1 ? '' : 's'}, headers ${result.headers.from} to ${result.headers.to}`,
  );
  writeLine(terminal.out, `  made ${result.made_at} from ${result.rpc}, signed by ${result.signer}`);
  if (result.checkpoints > 0)
    writeLine(terminal.out, `  ${result.checkpoints} log checkpoint${result.checkpoints === 1 ? '' : 's'} seen here`);
  if (result.missing.length > 0) writeLine(terminal.out, `  ${result.missing.length} not packed (see above)`);
  return 0;
}
