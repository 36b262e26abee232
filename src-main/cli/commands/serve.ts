/**
 * `evroom serve`: the HTTP service of the interface, and `evroom service keys rotate`.
 */
import type { AnchoringConfig } from '../../anchor/anchoring';
import { MAX_POOL_SIZE as MAX_VERIFY_THREADS } from '../../core/worker-pool';
import { ledgerFileIn, resolveDataDirectory } from '../../ledger/data-directory';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from '../../operations/service-issue';
import { rotateServiceKey } from '../../operations/service-keys';
import { DEFAULT_LOG_CHECKPOINT_MS, isLogName, LOG_NAME_RULE } from '../../operations/service-log';
import { CliError } from '../cli-error';
import { flag, optionValue, parseCommandArguments, type CommandSpec } from '../arguments';
import { writeLine, type Terminal } from '../terminal';
import { DATABASE_HELP, DATABASE_OPTION, databaseUrlOf, describeStore, withServiceStore } from './service-database';

/** Why `serve --database` needs a chain of its own (brief rule 10). */
export const DATABASE_NEEDS_CHAIN_RPC =
  "With --database, anchoring needs --chain-rpc: each node's embedded chain would be a chain of its own; pass --chain-rpc URL, or --no-anchor.";

export const serveSpec: CommandSpec = {
  name: 'serve',
  summary: 'Run the HTTP service (receipts, verification, tenants, evidence bundles)',
  usage:
    'evroom serve [--database URL] [--port N] [--host ADDR] [--rate-limit N] [--ledger-cache MIB] [--verify-threads N] [--quiet] [--no-anchor | --chain-rpc URL --chain-name NAME --chain-key-file FILE [--stablecoin ADDRESS --treasury ADDRESS [--payments-from-block N]]] [--anchor-interval SECONDS] [--confirmations N] [--smtp URL] [--public-url URL] [--log-name NAME] [--log-checkpoint-ms MS]',
  description: [
    'Serves every route of the service interface (see docs/service.md) over the data folder’s',
    'ledger. The first line on standard output is `Evidence Room service at http://HOST:PORT`;',
    'request log lines (method, path, status; never keys or bodies) go to standard error.',
    'Binds 127.0.0.1 unless --host says otherwise. The signing key is made on first start in',
    'the data folder’s service/ (mode 600). Ctrl-C or SIGTERM lets requests in flight finish,',
    'then closes the ledger.',
    'Tenants and API keys: evroom tenants, evroom apikeys. OpenAPI: GET /openapi.json.',
    'Anchoring (POST /v1/anchor): by default on an embedded local chain (anvil, network',
    'anvil-local) whose state and anchor account key (mode 600) live in the data folder’s',
    'anchor/; --chain-rpc, --chain-name and --chain-key-file (a 0600 file holding the funded',
    'account’s private key as 0x hex) point at any EVM JSON-RPC instead. --no-anchor runs',
    'without anchoring (POST /v1/anchor answers 503). Chain errors go to standard error.',
    'API keys bought on chain (docs/payments.md): the embedded chain gets a six-decimal test',
    'stablecoin and a treasury on first start (printed beside the chain); on another chain',
    '--stablecoin and --treasury name them. Payments to the treasury become keys after',
    '--confirmations blocks; each key goes to its buyer: by mail (the data folder’s outbox/, one',
    '.eml per message, or --smtp smtp[s]://[user:pass@]host:port) or sealed to a did:key. A mailed',
    'key’s message says where to use it: --public-url (behind a proxy), else the address served.',
    'Without a chain (--no-anchor) the service takes no payments.',
    'Each tenant’s receipts go into a transparency log of its own (docs/logs.md): checkpoints',
    'signed with the log key (made on first start, service/log-key.json, mode 600) under',
    '--log-name, at most every --log-checkpoint-ms while a log grows.',
    'Several nodes, one database: with --database URL (or EVROOM_DATABASE_URL) tenants, API keys,',
    'quotas, issued receipts and their logs, anchors and payments live in PostgreSQL, and any',
    'number of `evroom serve` processes behind a load balancer serve them. Every node holds the',
    'same service/ folder (its keys; a node with other keys refuses to start), anchors on one',
    'chain (--chain-rpc; the embedded chain is refused) and is listed by /status. The first',
    'line on standard error names the store: `store: postgres HOST:PORT/DB` or `store: sqlite FILE`.',
    ...DATABASE_HELP,
  ],
  options: {
    ...DATABASE_OPTION,
    port: { type: 'string', value: 'N', help: 'the port (default 8787; 0: any free port)' },
    host: { type: 'string', value: 'ADDR', help: 'the address to listen on (default 127.0.0.1)' },
    'rate-limit': {
      type: 'string',
      value: 'N',
      help: `requests a minute per client address on every route (default ${DEFAULT_RATE_LIMIT_PER_MINUTE})`,
    },
    'ledger-cache': {
      type: 'string',
      value: 'MIB',
      help: 'SQLite page cache per ledger connection, in MiB (default 64; two connections)',
    },
    'verify-threads': {
      type: 'string',
      value: 'N',
      help: 'worker threads verifying the verify route’s requests (default: one fewer than the cores, at least 1; the HTTP thread takes one request in 4 × N; 0: the HTTP thread verifies them all)',
    },
    quiet: { type: 'boolean', help: 'no request log lines' },
    'no-anchor': { type: 'boolean', help: 'run without anchoring' },
    'chain-rpc': { type: 'string', value: 'URL', help: 'anchor on this EVM JSON-RPC instead of the embedded chain' },
    'chain-name': {
      type: 'string',
      value: 'NAME',
      help: 'the network name resolved anchors carry (e.g. base); with --chain-rpc',
    },
    'chain-key-file': {
      type: 'string',
      value: 'FILE',
      help: 'the anchor account’s private key (0x hex, mode 600); with --chain-rpc',
    },
    'anchor-interval': {
      type: 'string',
      value: 'SECONDS',
      help: 'seconds a batch stays open (default 60; fractions allowed)',
    },
    confirmations: {
      type: 'string',
      value: 'N',
      help: 'blocks before a batch resolves and before a payment becomes a key (default 1)',
    },
    stablecoin: {
      type: 'string',
      value: 'ADDRESS',
      help: 'the six-decimal stablecoin API keys are bought with; with --chain-rpc and --treasury',
    },
    treasury: { type: 'string', value: 'ADDRESS', help: 'where payments go; with --stablecoin' },
    'payments-from-block': {
      type: 'string',
      value: 'N',
      help: 'with --stablecoin: at the first start, watch payments from block N (default: the chain’s head then)',
    },
    smtp: {
      type: 'string',
      value: 'URL',
      help: 'send bought keys by SMTP (smtp:// or smtps://, user:pass@ allowed) instead of the outbox folder',
    },
    'public-url': {
      type: 'string',
      value: 'URL',
      help: 'the address buyers reach the service at, told in bought keys’ messages (default: the address it listens at)',
    },
    'log-name': {
      type: 'string',
      value: 'NAME',
      help: 'the tenants’ logs’ name and note key name, a schema-less URL (origin NAME/tenants/T; default evroom.local/ and 16 hex digits of the log key’s SHA-256)',
    },
    'log-checkpoint-ms': {
      type: 'string',
      value: 'MS',
      help: `how often the logs that grew are signed, in ms (default ${DEFAULT_LOG_CHECKPOINT_MS}; 1 to 60000)`,
    },
  },
  exitCodes: [
    '0  stopped by Ctrl-C or SIGTERM',
    '2  usage error, or the address, the data folder or the database cannot be used',
  ],
  examples: [
    'evroom serve',
    'evroom serve --port 0',
    'evroom serve --host 0.0.0.0 --port 8080',
    'evroom serve --chain-rpc https://mainnet.base.org --chain-name base --chain-key-file anchor-key --confirmations 3',
    'evroom serve --no-anchor',
    'evroom serve --database postgres://evroom:PASSWORD@db.internal:5432/evroom --host 0.0.0.0 --chain-rpc https://mainnet.base.org --chain-name base --chain-key-file anchor-key',
    'evroom serve --chain-rpc https://mainnet.base.org --chain-name base --chain-key-file anchor-key --stablecoin 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913 --treasury 0xYourTreasury --smtp smtps://keys%40example.com:PASSWORD@smtp.example.com:465',
  ],
};

export const serviceSpec: CommandSpec = {
  name: 'service',
  summary: 'Manage the HTTP service’s signing keys',
  usage: 'evroom service keys rotate [--database URL] [--json]',
  description: [
    'keys rotate  retires the signing key (kept in service/retired/, still listed by /v1/keys as',
    '             retired, so what it signed keeps verifying) and makes a new one. Restart a',
    '             running service to sign with the new key.',
    '             With --database the new key becomes the one the database registers: copy this',
    '             service/ folder to every node, then restart them (docs/deploy.md).',
    ...DATABASE_HELP,
  ],
  options: { ...DATABASE_OPTION, json: { type: 'boolean', help: 'print JSON' } },
  exitCodes: ['0  done', '2  usage or I/O error, or the database cannot be reached'],
  examples: ['evroom service keys rotate', 'evroom service keys rotate --database "$EVROOM_DATABASE_URL"'],
};

/** What --public-url takes: what a key's message can print (delivery/key-message.ts). */
const PUBLIC_URL = /^https?:\/\/[\x21-\x7e]{1,2000}$/;

function wholeNumber(name: string, text: string | undefined, min: number, max: number, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d{1,9}$/.test(text) || Number(text) < min || Number(text) > max)
    throw new CliError(`serve: --${name} must be a whole number from ${min} to ${max}, not '${text}'`);
  return Number(text);
}

/** The anchoring the serve options ask for. */
function anchoringOptions(
  parsed: ReturnType<typeof parseCommandArguments>,
  terminal: Terminal,
): AnchoringConfig | false {
  const rpc = optionValue(parsed, 'chain-rpc');
  const name = optionValue(parsed, 'chain-name');
  const keyFile = optionValue(parsed, 'chain-key-file');
  const stablecoin = optionValue(parsed, 'stablecoin');
  const treasury = optionValue(parsed, 'treasury');
  const intervalText = optionValue(parsed, 'anchor-interval');
  const confirmationsText = optionValue(parsed, 'confirmations');
  if (flag(parsed, 'no-anchor')) {
    const other = [
      'chain-rpc',
      'chain-name',
      'chain-key-file',
      'anchor-interval',
      'confirmations',
      'stablecoin',
      'treasury',
      'payments-from-block',
    ].find((option) => optionValue(parsed, option) !== undefined);
    if (other !== undefined) throw new CliError(`serve: --no-anchor and --${other} do not go together`);
    return false;
  }
  const given = [rpc, name, keyFile].filter((value) => value !== undefined).length;
  if (given !== 0 && given !== 3)
    throw new CliError(
      'serve: --chain-rpc, --chain-name and --chain-key-file go together (all three, or none for the embedded chain)',
    );
  if ((stablecoin === undefined) !== (treasury === undefined))
    throw new CliError('serve: --stablecoin and --treasury go together');
  if (optionValue(parsed, 'payments-from-block') !== undefined && stablecoin === undefined)
    throw new CliError(
      'serve: --payments-from-block goes with --stablecoin and --treasury (the embedded chain is watched from block 0)',
    );
  if (stablecoin !== undefined && rpc === undefined)
    throw new CliError(
      'serve: --stablecoin and --treasury are for --chain-rpc; the embedded chain makes its own test stablecoin and treasury',
    );
  for (const [option, value] of [
    ['stablecoin', stablecoin],
    ['treasury', treasury],
  ] as const) {
    if (value !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(value))
      throw new CliError(`serve: --${option} must be an address (0x and 40 hex characters), not '${value}'`);
  }
  let intervalSeconds: number | undefined;
  if (intervalText !== undefined) {
    if (!/^\d{1,5}(?:\.\d{1,3})?$/.test(intervalText) || Number(intervalText) < 0.01 || Number(intervalText) > 86_400) {
      throw new CliError(`serve: --anchor-interval must be seconds from 0.01 to 86400, not '${intervalText}'`);
    }
    intervalSeconds = Number(intervalText);
  }
  const confirmations = wholeNumber('confirmations', confirmationsText, 1, 1000, 1);
  return {
    chain:
      rpc !== undefined && name !== undefined && keyFile !== undefined
        ? {
            kind: 'rpc',
            rpcUrl: rpc,
            network: name,
            keyFile,
            ...(stablecoin !== undefined && treasury !== undefined
              ? { stablecoin: { token: stablecoin, treasury } }
              : {}),
          }
        : { kind: 'embedded' },
    confirmations,
    ...(intervalSeconds === undefined ? {} : { intervalSeconds }),
    log: (line) => writeLine(terminal.err, line),
  };
}

/** Runs `evroom serve` until Ctrl-C or SIGTERM. */
export async function runServe(argv: readonly string[], terminal: Terminal): Promise<number> {
  const parsed = parseCommandArguments(serveSpec, argv);
  if (parsed.positionals.length > 0) throw new CliError(`serve: unexpected argument "${parsed.positionals[0]}"`);
  const port = wholeNumber('port', optionValue(parsed, 'port'), 0, 65535, 8787);
  const rateLimit = wholeNumber(
    'rate-limit',
    optionValue(parsed, 'rate-limit'),
    1,
    1_000_000,
    DEFAULT_RATE_LIMIT_PER_MINUTE,
  );
  const ledgerCacheMiB = wholeNumber('ledger-cache', optionValue(parsed, 'ledger-cache'), 1, 4096, 64);
  const verifyThreadsText = optionValue(parsed, 'verify-threads');
  const verifyThreads =
    verifyThreadsText === undefined
      ? undefined
      : wholeNumber('verify-threads', verifyThreadsText, 0, MAX_VERIFY_THREADS, 0);
  const host = optionValue(parsed, 'host') ?? '127.0.0.1';
  const logName = optionValue(parsed, 'log-name');
  if (logName !== undefined && !isLogName(logName))
    throw new CliError(`serve: --log-name must be ${LOG_NAME_RULE}, not '${logName}'`);
  const checkpointMs = wholeNumber(
    'log-checkpoint-ms',
    optionValue(parsed, 'log-checkpoint-ms'),
    1,
    60_000,
    DEFAULT_LOG_CHECKPOINT_MS,
  );
  const databaseUrl = databaseUrlOf('serve', parsed);
  const smtpUrl = optionValue(parsed, 'smtp');
  if (smtpUrl !== undefined && flag(parsed, 'no-anchor'))
    throw new CliError('serve: --smtp delivers bought API keys; with --no-anchor the service takes no payments');
  const publicUrl = optionValue(parsed, 'public-url');
  if (publicUrl !== undefined && !PUBLIC_URL.test(publicUrl))
    throw new CliError(
      `serve: --public-url must be an http:// or https:// URL of printable ASCII without spaces, not '${publicUrl.slice(0, 80)}'`,
    );
  if (publicUrl !== undefined && flag(parsed, 'no-anchor'))
    throw new CliError(
      'serve: --public-url is told to buyers of API keys; with --no-anchor the service takes no payments',
    );
  const fromBlockText = optionValue(parsed, 'payments-from-block');
  if (fromBlockText !== undefined && !/^\d{1,15}$/.test(fromBlockText))
    throw new CliError(
      `serve: --payments-from-block must be a block number (a whole number from 0), not '${fromBlockText.slice(0, 40)}'`,
    );
  let anchor: AnchoringConfig | false;
  try {
    anchor = anchoringOptions(parsed, terminal);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`serve: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (databaseUrl !== undefined && anchor !== false && anchor.chain.kind === 'embedded')
    throw new CliError(`serve: ${DATABASE_NEEDS_CHAIN_RPC}`);
  let service;
  try {
    // Loaded when serving, not for every evroom command: Fastify and its plugins take a while to load.
    const { startService } = await import('../../app/service-mode');
    service = await startService({
      dataDirectory: resolveDataDirectory(),
      host,
      port,
      rateLimitPerMinute: rateLimit,
      ledgerCacheMiB,
      ...(verifyThreads === undefined ? {} : { verifyThreads }),
      anchor,
      ...(flag(parsed, 'quiet') ? {} : { logStream: process.stderr }),
      ...(smtpUrl === undefined ? {} : { smtpUrl }),
      ...(publicUrl === undefined ? {} : { publicUrl }),
      ...(fromBlockText === undefined ? {} : { paymentsFromBlock: Number(fromBlockText) }),
      log: { checkpointMs, ...(logName === undefined ? {} : { name: logName }) },
      ...(databaseUrl === undefined ? {} : { databaseUrl }),
    });
  } catch (error) {
    throw new CliError(`serve: ${error instanceof Error ? error.message : String(error)}`);
  }
  writeLine(terminal.out, `Evidence Room service at ${service.url}`);
  writeLine(terminal.err, `store: ${describeStore(databaseUrl, ledgerFileIn(resolveDataDirectory()))}`);
  writeLine(
    terminal.err,
    service.anchor === null
      ? 'Anchoring is off (--no-anchor).'
      : `Anchoring on ${service.anchor.network} at ${service.anchor.rpcUrl}.`,
  );
  if (service.payments !== null) {
    writeLine(
      terminal.err,
      `API keys are bought on ${service.payments.network}: stablecoin ${service.payments.token} (6 decimals), treasury ${service.payments.treasury}${service.payments.development ? '; the development accounts hold 1,000,000 test tokens each' : ''}.`,
    );
    writeLine(terminal.err, `Bought keys are delivered ${service.mail}.`);
  } else if (service.anchor !== null)
    writeLine(terminal.err, 'No payments: name --stablecoin and --treasury to sell API keys on this chain.');
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1')
    writeLine(terminal.err, `Listening on ${host}: reachable from other machines. Press Ctrl-C to stop.`);
  await new Promise<void>((resolveStop) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolveStop();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await service.close();
  writeLine(
    terminal.err,
    databaseUrl === undefined
      ? 'Stopped; the ledger is closed.'
      : 'Stopped; the ledger and the database connections are closed.',
  );
  return 0;
}

/** Runs `evroom service keys rotate`. */
export async function runService(argv: readonly string[], terminal: Terminal): Promise<number> {
  const [area, action, ...rest] = argv;
  if (area === undefined || area.startsWith('-')) parseCommandArguments(serviceSpec, argv);
  if (area !== 'keys' || action !== 'rotate')
    throw new CliError('service: the command is `evroom service keys rotate`. See: evroom service --help');
  const parsed = parseCommandArguments(serviceSpec, rest);
  if (parsed.positionals.length > 0)
    throw new CliError(`service keys rotate: unexpected argument "${parsed.positionals[0]}"`);
  const databaseUrl = databaseUrlOf('service keys rotate', parsed);
  // The store is opened first: an unreachable database stops the rotation before any file changes.
  const rotated = await withServiceStore('service keys rotate', databaseUrl, (store, workspace) =>
    rotateServiceKey(workspace, store),
  );
  writeLine(
    terminal.out,
    flag(parsed, 'json')
      ? JSON.stringify(rotated)
      : `Signing with ${rotated.key_id} now; ${rotated.retired_key_id} is retired and still listed.`,
  );
  return 0;
}
