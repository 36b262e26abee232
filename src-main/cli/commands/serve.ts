/**
 * `evroom serve`: the HTTP service of the interface, and `evroom service keys rotate`.
 */
import { resolveDataDirectory } from '../../ledger/data-directory';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from '../../operations/service-issue';
import { rotateServiceKey } from '../../operations/service-keys';
import { CliError } from '../cli-error';
import { flag, optionValue, parseCommandArguments, type CommandSpec } from '../arguments';
import { writeLine, type Terminal } from '../terminal';
import { withCliWorkspace } from './ledger';

export const serveSpec: CommandSpec = {
  name: 'serve',
  summary: 'Run the HTTP service (receipts, verification, tenants, evidence bundles)',
  usage: 'evroom serve [--port N] [--host ADDR] [--rate-limit N] [--quiet]',
  description: [
    'Serves every route of the service interface (see docs/service.md) over the data folder’s',
    'ledger. The first line on standard output is `Evidence Room service at http://HOST:PORT`;',
    'request log lines (method, path, status; never keys or bodies) go to standard error.',
    'Binds 127.0.0.1 unless --host says otherwise. The signing key is made on first start in',
    'the data folder’s service/ (mode 600). Ctrl-C or SIGTERM lets requests in flight finish,',
    'then closes the ledger.',
    'Tenants and API keys: evroom tenants, evroom apikeys. OpenAPI: GET /openapi.json.',
  ],
  options: {
    port: { type: 'string', value: 'N', help: 'the port (default 8787; 0: any free port)' },
    host: { type: 'string', value: 'ADDR', help: 'the address to listen on (default 127.0.0.1)' },
    'rate-limit': { type: 'string', value: 'N', help: `requests a minute per client address on every route (default ${DEFAULT_RATE_LIMIT_PER_MINUTE})` },
    quiet: { type: 'boolean', help: 'no request log lines' },
  },
  exitCodes: ['0  stopped by Ctrl-C or SIGTERM', '2  usage error, or the address or data folder cannot be used'],
  examples: ['evroom serve', 'evroom serve --port 0', 'evroom serve --host 0.0.0.0 --port 8080'],
};

export const serviceSpec: CommandSpec = {
  name: 'service',
  summary: 'Manage the HTTP service’s signing keys',
  usage: 'evroom service keys rotate [--json]',
  description: [
    'keys rotate  retires the signing key (kept in service/retired/, still listed by /v1/keys as',
    '             retired, so what it signed keeps verifying) and makes a new one. Restart a',
    '             running service to sign with the new key.',
  ],
  options: { json: { type: 'boolean', help: 'print JSON' } },
  exitCodes: ['0  done', '2  usage or I/O error'],
  examples: ['evroom service keys rotate'],
};

function wholeNumber(name: string, text: string | undefined, min: number, max: number, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d{1,9}$/.test(text) || Number(text) < min || Number(text) > max) throw new CliError(`serve: --${name} must be a whole number from ${min} to ${max}, not '${text}'`);
  return Number(text);
}

/** Runs `evroom serve` until Ctrl-C or SIGTERM. */
export async function runServe(argv: readonly string[], terminal: Terminal): Promise<number> {
  const parsed = parseCommandArguments(serveSpec, argv);
  if (parsed.positionals.length > 0) throw new CliError(`serve: unexpected argument "${parsed.positionals[0]}"`);
  const port = wholeNumber('port', optionValue(parsed, 'port'), 0, 65535, 8787);
  const rateLimit = wholeNumber('rate-limit', optionValue(parsed, 'rate-limit'), 1, 1_000_000, DEFAULT_RATE_LIMIT_PER_MINUTE);
  const host = optionValue(parsed, 'host') ?? '127.0.0.1';
  let service;
  try {
    // Loaded when serving, not for every evroom command: Fastify and its plugins take a while to load.
    const { startService } = await import('../../app/service-mode');
    service = await startService({ dataDirectory: resolveDataDirectory(), host, port, rateLimitPerMinute: rateLimit, ...(flag(parsed, 'quiet') ? {} : { logStream: process.stderr }) });
  } catch (error) {
    throw new CliError(`serve: ${error instanceof Error ? error.message : String(error)}`);
  }
  writeLine(terminal.out, `Evidence Room service at ${service.url}`);
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') writeLine(terminal.err, `Listening on ${host}: reachable from other machines. Press Ctrl-C to stop.`);
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
  writeLine(terminal.err, 'Stopped; the ledger is closed.');
  return 0;
}

/** Runs `evroom service keys rotate`. */
export async function runService(argv: readonly string[], terminal: Terminal): Promise<number> {
  const [area, action, ...rest] = argv;
  if (area === undefined || area.startsWith('-')) parseCommandArguments(serviceSpec, argv);
  if (area !== 'keys' || action !== 'rotate') throw new CliError('service: the command is `evroom service keys rotate`. See: evroom service --help');
  const parsed = parseCommandArguments(serviceSpec, rest);
  if (parsed.positionals.length > 0) throw new CliError(`service keys rotate: unexpected argument "${parsed.positionals[0]}"`);
  const rotated = await withCliWorkspace('service keys rotate', (workspace) => rotateServiceKey(workspace));
  writeLine(terminal.out, flag(parsed, 'json') ? JSON.stringify(rotated) : `Signing with ${rotated.key_id} now; ${rotated.retired_key_id} is retired and still listed.`);
  return 0;
}
