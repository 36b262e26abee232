/**
 * `evroom anchor verify|submit|status`: the counterparty side of anchoring (PROTOCOL section 8).
 *
 * - verify: the three steps for a receipt and its anchor record (or a bundle's anchors file):
 *   step 1 offline, steps 2 and 3 on the chain named by --rpc; --offline checks step 1 only.
 *   Neither --rpc nor --offline is a usage error: the user says which check is meant.
 * - submit: sends only the receipt's canonical SHA-256 to an anchoring service.
 * - status: fetches an anchor's record (pending or resolved) and can save it for verify.
 *
 * The API key is read from a file (never an argument, never printed).
 */
import { parseAnchorUrn } from '../../../src-shared/anchor/urn';
import type { AnchorStep } from '../../../src-shared/anchor/proof';
import {
  anchorStatus,
  AnchorServiceError,
  readApiKeyFile,
  submitAnchor,
  type ServiceAnchorRecord,
} from '../../operations/anchor-client';
import { receiptCanonicalDigest, verifyAnchorFiles } from '../../operations/anchor-verify';
import { CliError } from '../cli-error';
import { existsSync } from 'node:fs';
import {
  flag,
  optionValue,
  optionValues,
  parseCommandArguments,
  type CommandSpec,
  type ParsedArguments,
} from '../arguments';
import { writeFileSafely } from '../key-files';
import { readDocumentInput } from '../read-input';
import { paint, writeLine, type Terminal, type Colour } from '../terminal';
import { isEd25519DidKey, parsePinOption } from './context';

/** The most confirmations --confirmations accepts (about four months of Ethereum blocks). */
const MAX_CONFIRMATIONS = 1_000_000;

/** Which options each subcommand takes; the others are refused. */
const SUBCOMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  verify: ['rpc', 'confirmations', 'offline', 'context', 'pin', 'signer', 'json'],
  submit: ['api', 'key-file', 'json'],
  status: ['api', 'key-file', 'out', 'force', 'json'],
};

export const anchorSpec: CommandSpec = {
  name: 'anchor',
  summary: 'Verify a receipt’s anchor on a chain; submit receipts for anchoring',
  usage: [
    'evroom anchor verify RECEIPT.json RECORD.json (--rpc URL | --context PACK.zip [--pin NUMBER:0xHASH ...] [--signer DID] | --offline) [--confirmations N] [--json]',
    '       evroom anchor submit RECEIPT.json --api URL --key-file FILE [--json]',
    '       evroom anchor status URN --api URL [--key-file FILE] [--out FILE [--force]] [--json]',
  ].join('\n'),
  description: [
    'verify  checks that RECEIPT.json is anchored by RECORD.json (an anchor record, or a bundle’s',
    '        anchors/<batch_id>.json, from which the record of this receipt is taken):',
    '        step 1 (offline) the URN ends with the first 16 hex characters of the receipt’s',
    '        canonical SHA-256 (SHA-256 of its JCS form), and merkle_path folds from it to',
    '        merkle_root; step 2 (--rpc) the transaction is in the record’s block and its data is',
    '        0x4556524101 and the root; step 3 (--rpc) it has at least N confirmations.',
    '        Give --rpc URL for all three, or --offline for step 1 alone (steps 2-3 are then',
    '        "unchecked", never passed). On an air-gapped workstation, --context PACK.zip answers',
    '        steps 2 and 3 from a context pack (evroom context export, made online) with no network:',
    '        each header hashes to its parent’s link, the transaction and its success receipt are',
    '        proved in their block, the depth is counted from the pack’s head; the verdict is then',
    '        verified_with_context, never verified. The pack’s head is claimed by its signer unless',
    '        --pin NUMBER:0xHASH (a block hash from a source you trust) matches one of its headers;',
    '        a pin that disagrees fails step 3. --signer DID requires the pack to be signed by that',
    '        key (the signer is always reported).',
    'submit  sends only {"canonical_sha256"} of RECEIPT.json to POST URL/v1/anchor with the API',
    '        key of --key-file (a file of mode 600 holding svc_<tier>_...) and prints the pending',
    '        record. The receipt itself never leaves this machine.',
    'status  asks GET URL/v1/anchor/<URN> for the record (pending or resolved) and prints it;',
    '        --out saves it for `evroom anchor verify`.',
  ],
  options: {
    rpc: { type: 'string', value: 'URL', help: 'verify: the chain’s JSON-RPC (http or https) for steps 2 and 3' },
    confirmations: { type: 'string', value: 'N', help: 'verify: confirmations step 3 requires (default 1)' },
    offline: { type: 'boolean', help: 'verify: check step 1 only; steps 2-3 are unchecked' },
    context: { type: 'string', value: 'PACK.zip', help: 'verify: answer steps 2 and 3 from a context pack, offline' },
    pin: {
      type: 'string',
      multiple: true,
      value: 'NUMBER:0xHASH',
      help: 'verify --context: a block hash you trust, checked against the pack (repeatable)',
    },
    signer: { type: 'string', value: 'DID', help: 'verify --context: the did:key the pack must be signed by' },
    api: { type: 'string', value: 'URL', help: 'submit, status: the anchoring service’s base URL' },
    'key-file': { type: 'string', value: 'FILE', help: 'submit, status: a file holding the API key (mode 600)' },
    out: { type: 'string', value: 'FILE', help: 'status: also write the record to FILE (JSON)' },
    force: { type: 'boolean', help: 'status: replace an existing --out file' },
    json: { type: 'boolean', help: 'print JSON' },
  },
  exitCodes: [
    'verify:  0  every step passes (with --offline: step 1 passes; steps 2-3 are unchecked;',
    '            with --context: verified_with_context)',
    '         1  a step failed, is unchecked without --offline (the chain did not answer), or the',
    '            anchor is pending',
    '         2  usage or I/O error (a missing or malformed file, no record for the receipt)',
    'submit, status:  0  done;  1  the service answered with an error;',
    '                 2  usage, file or key file error, or the service could not be reached',
  ],
  examples: [
    'evroom anchor verify receipt.json record.json --rpc https://mainnet.base.org --confirmations 12',
    'evroom anchor verify receipt.json bundle/anchors/2026-11-23T09:00Z.json --offline --json',
    'evroom anchor verify receipt.json record.json --context pack.zip --pin 23000000:0x5e1f...c0de',
    'evroom anchor submit receipt.json --api https://api.example.com --key-file ~/.evroom-api-key',
    'evroom anchor status urn:svc:anchor:pending:2026-11-23T09:00Z:0123456789abcdef --api https://api.example.com --out record.json',
  ],
};

function checkOptions(sub: string, parsed: ParsedArguments): void {
  const allowed = SUBCOMMAND_OPTIONS[sub] ?? [];
  for (const [name, value] of Object.entries(parsed.values)) {
    if (value === undefined || allowed.includes(name)) continue;
    throw new CliError(
      `anchor ${sub}: --${name} does not apply here (anchor ${sub} takes ${allowed.map((option) => `--${option}`).join(', ')}). See: evroom anchor --help`,
    );
  }
}

function operands(sub: string, parsed: ParsedArguments, names: readonly string[]): string[] {
  if (parsed.positionals.length !== names.length) {
    const given = parsed.positionals.length;
    throw new CliError(
      `anchor ${sub}: expects ${names.join(' and ')}, got ${given} argument${given === 1 ? '' : 's'}. See: evroom anchor --help`,
    );
  }
  return parsed.positionals;
}

function checkHttpUrl(option: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`anchor: --${option} must be an http or https URL, not ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`anchor: --${option} must be an http or https URL, not ${url.protocol}`);
  return value;
}

/**
 * Runs `evroom anchor`.
 *
 * @returns The exit code (see the spec's exit codes).
 */
export async function runAnchor(argv: readonly string[], terminal: Terminal): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== undefined && sub.startsWith('-')) parseCommandArguments(anchorSpec, argv);
  const parsed = parseCommandArguments(anchorSpec, rest);
  switch (sub) {
    case 'verify':
      checkOptions(sub, parsed);
      return runVerifyAnchor(parsed, terminal);
    case 'submit':
    case 'status':
      checkOptions(sub, parsed);
      try {
        return sub === 'submit' ? await runSubmit(parsed, terminal) : await runStatus(parsed, terminal);
      } catch (error) {
        if (!(error instanceof AnchorServiceError)) throw error;
        writeLine(terminal.err, `evroom: anchor ${sub}: ${error.message}`);
        if (flag(parsed, 'json'))
          writeLine(
            terminal.out,
            JSON.stringify({
              error: { status: error.status, code: error.code, message: error.message, details: error.details },
            }),
          );
        return error.status === 0 ? 2 : 1;
      }
    case undefined:
      throw new CliError('anchor: name a subcommand: verify, submit or status. See: evroom anchor --help');
    default:
      throw new CliError(
        `anchor: unknown subcommand '${sub}'; use verify, submit or status. See: evroom anchor --help`,
      );
  }
}

const STEP_COLOUR: Readonly<Record<AnchorStep['status'], Colour>> = { pass: 'green', fail: 'red', unchecked: 'yellow' };
const VERDICT: Readonly<Record<string, { text: string; colour: Colour }>> = {
  verified: { text: 'VERIFIED on chain', colour: 'green' },
  verified_with_context: {
    text: 'VERIFIED WITH CONTEXT (steps 2-3 from a signed context pack; no chain asked)',
    colour: 'green',
  },
  verified_offline: { text: 'VERIFIED OFFLINE (step 1 only; the chain was not asked)', colour: 'yellow' },
  pending: { text: 'PENDING (not on chain yet)', colour: 'yellow' },
  failed: { text: 'FAILED', colour: 'red' },
};
const STEP_NAME = [
  '',
  'receipt digest, URN suffix, Merkle path to root',
  'transaction in its block carries the root',
  'confirmations',
];

async function runVerifyAnchor(parsed: ParsedArguments, terminal: Terminal): Promise<number> {
  const [receiptName, recordName] = operands('verify', parsed, ['RECEIPT.json', 'RECORD.json']) as [string, string];
  if (receiptName === '-' && recordName === '-')
    throw new CliError('anchor verify: standard input (-) can be named only once');
  const offline = flag(parsed, 'offline');
  const rpc = optionValue(parsed, 'rpc');
  const context = optionValue(parsed, 'context');
  const pinTexts = optionValues(parsed, 'pin');
  const confirmationsText = optionValue(parsed, 'confirmations');
  const modes = [offline, rpc !== undefined, context !== undefined].filter(Boolean).length;
  if (modes > 1)
    throw new CliError(
      'anchor verify: --rpc URL (all three steps on the chain), --context PACK.zip (steps 2-3 from a pack) and --offline (step 1 only) exclude each other: give one, not both',
    );
  if (modes === 0) {
    throw new CliError(
      'anchor verify: give --rpc URL to check the transaction on the chain (steps 2-3), --context PACK.zip to check it from a context pack, or --offline to check step 1 only',
    );
  }
  if (pinTexts.length > 0 && context === undefined)
    throw new CliError('anchor verify: --pin checks a context pack; it applies only with --context PACK.zip');
  if (pinTexts.length > 100) throw new CliError('anchor verify: at most 100 --pin options');
  const signer = optionValue(parsed, 'signer');
  if (signer !== undefined && context === undefined)
    throw new CliError(
      'anchor verify: --signer names who must have signed a context pack; it applies only with --context',
    );
  if (signer !== undefined && !isEd25519DidKey(signer))
    throw new CliError(
      `anchor verify: --signer must be an Ed25519 did:key (did:key:z6Mk...), not ${JSON.stringify(signer.slice(0, 100))}`,
    );
  const pins = pinTexts.map(parsePinOption);
  if (context !== undefined && !existsSync(context))
    throw new CliError(`anchor verify: --context ${context}: no such file`);
  if (offline && confirmationsText !== undefined)
    throw new CliError('anchor verify: --confirmations is for step 3, which --offline does not run');
  let confirmations: number | undefined;
  if (confirmationsText !== undefined) {
    if (!/^[1-9]\d{0,6}$/.test(confirmationsText) || Number(confirmationsText) > MAX_CONFIRMATIONS) {
      throw new CliError(
        `anchor verify: --confirmations must be a whole number from 1 to ${MAX_CONFIRMATIONS}, not ${JSON.stringify(confirmationsText)}`,
      );
    }
    confirmations = Number(confirmationsText);
  }
  if (rpc !== undefined) checkHttpUrl('rpc', rpc);
  const receipt = await readDocumentInput(receiptName);
  const record = await readDocumentInput(recordName);
  const result = await verifyAnchorFiles({
    receipt,
    record,
    offline,
    ...(rpc === undefined ? {} : { rpcUrl: rpc }),
    ...(context === undefined ? {} : { contextPack: context, pins }),
    ...(signer === undefined ? {} : { contextSigner: signer }),
    ...(confirmations === undefined ? {} : { confirmations }),
  });
  const steps = result.steps;
  const passed =
    result.anchor_status ===
    (context !== undefined ? 'verified_with_context' : offline ? 'verified_offline' : 'verified');
  if (flag(parsed, 'json')) {
    writeLine(
      terminal.out,
      JSON.stringify({
        anchor_status: result.anchor_status,
        steps,
        receipt_sha256: result.receipt_sha256,
        svc_anchor: result.svc_anchor,
      }),
    );
  } else {
    const verdict = VERDICT[result.anchor_status] ?? { text: result.anchor_status, colour: 'red' as Colour };
    writeLine(
      terminal.out,
      `Anchor of ${receiptName === '-' ? 'standard input' : receiptName}: ${paint(terminal.color, verdict.colour, verdict.text)}`,
    );
    writeLine(terminal.out, `  receipt_sha256  ${result.receipt_sha256}`);
    if (result.svc_anchor !== null) writeLine(terminal.out, `  svc_anchor      ${result.svc_anchor}`);
    if (result.note !== null) writeLine(terminal.out, `  record          ${result.note}`);
    for (const step of steps) {
      const status = paint(terminal.color, STEP_COLOUR[step.status], step.status.padEnd(9));
      writeLine(terminal.out, `  step ${step.step}  ${status}  ${STEP_NAME[step.step]}`);
      writeLine(terminal.out, `                    ${step.detail}`);
      if (step.evidence === 'context' && step.context !== undefined) {
        const pack = step.context;
        writeLine(
          terminal.out,
          `                    evidence: context pack ${pack.pack_id}, head ${pack.head.number} (${pack.head_trust}), made ${pack.made_at}, signed by ${pack.signer}`,
        );
      }
    }
    writeLine(terminal.out, `anchor_status: ${result.anchor_status}`);
  }
  return passed ? 0 : 1;
}

async function readDigest(name: string): Promise<Uint8Array> {
  return receiptCanonicalDigest(await readDocumentInput(name));
}

function printRecord(record: ServiceAnchorRecord, json: boolean, terminal: Terminal, saved: string | undefined): void {
  if (json) {
    writeLine(terminal.out, JSON.stringify(record.record));
    return;
  }
  const fields = record.record;
  writeLine(terminal.out, `${record.status === 'pending' ? 'Pending' : 'Resolved'}: ${String(fields['svc_anchor'])}`);
  for (const name of ['batch_id', 'eta_seconds', 'network', 'block_height', 'tx_hash', 'merkle_root', 'verified_at']) {
    if (fields[name] !== undefined) writeLine(terminal.out, `  ${name.padEnd(13)} ${String(fields[name])}`);
  }
  const path = fields['merkle_path'];
  if (Array.isArray(path)) writeLine(terminal.out, `  ${'merkle_path'.padEnd(13)} ${path.length} steps`);
  if (saved !== undefined)
    writeLine(terminal.out, `Saved to ${saved}; check it with: evroom anchor verify RECEIPT.json ${saved} --rpc URL`);
}

async function runSubmit(parsed: ParsedArguments, terminal: Terminal): Promise<number> {
  const [receiptName] = operands('submit', parsed, ['RECEIPT.json']) as [string];
  const api = optionValue(parsed, 'api');
  const keyFile = optionValue(parsed, 'key-file');
  if (api === undefined) throw new CliError('anchor submit: give the service with --api URL');
  if (keyFile === undefined)
    throw new CliError(
      'anchor submit: give the API key file with --key-file FILE (the key is never taken as an argument)',
    );
  const digest = await readDigest(receiptName);
  const apiKey = await readApiKeyFile(keyFile);
  const record = await submitAnchor({ apiUrl: api, apiKey, digest });
  printRecord(record, flag(parsed, 'json'), terminal, undefined);
  return 0;
}

async function runStatus(parsed: ParsedArguments, terminal: Terminal): Promise<number> {
  const [urn] = operands('status', parsed, ['URN']) as [string];
  const api = optionValue(parsed, 'api');
  if (api === undefined) throw new CliError('anchor status: give the service with --api URL');
  if (parseAnchorUrn(urn) === undefined) {
    throw new CliError(
      `anchor status: ${JSON.stringify(urn)} is not an anchor URN (urn:svc:anchor:pending:<batch_id>:<suffix> or urn:svc:anchor:<network>:<block_height>:<tx_hash>:<suffix>)`,
    );
  }
  const out = optionValue(parsed, 'out');
  if (out === undefined && flag(parsed, 'force'))
    throw new CliError('anchor status: --force only applies with --out FILE');
  const keyFile = optionValue(parsed, 'key-file');
  const apiKey = keyFile === undefined ? undefined : await readApiKeyFile(keyFile);
  const record = await anchorStatus({ apiUrl: api, urn, ...(apiKey === undefined ? {} : { apiKey }) });
  if (out !== undefined)
    await writeFileSafely(out, `${JSON.stringify(record.record, null, 2)}\n`, { force: flag(parsed, 'force') });
  printRecord(record, flag(parsed, 'json'), terminal, out);
  return 0;
}
