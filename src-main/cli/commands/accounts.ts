/**
 * `evroom tenants create|list` and `evroom apikeys issue|list|revoke`: the HTTP service's
 * accounts (PROTOCOL section 9). An API key is printed once, when issued; it is stored only as
 * its SHA-256 and named afterwards by its prefix.
 */
import { TIERS, type Tier } from '../../../src-shared/api/vocabulary';
import { apiKeys, createTenant, issueApiKey, revokeKeyByPrefix, tenants } from '../../operations/service-admin';
import type { ServiceStore } from '../../operations/service-store';
import { CliError } from '../cli-error';
import {
  flag,
  optionValue,
  optionValues,
  parseCommandArguments,
  type CommandSpec,
  type ParsedArguments,
} from '../arguments';
import { writeLine, type Terminal } from '../terminal';
import { PAYMENT_OPTIONS, runPayments, runRedeem } from './apikeys-payments';
import { BUYER_DESCRIPTION, BUYER_OPTIONS, BUYER_USAGE, runApikeysBuy, runApikeysPickup } from './apikeys-buyer';
import { DATABASE_HELP, DATABASE_OPTION, databaseUrlOf, withServiceStore } from './service-database';

export const tenantsSpec: CommandSpec = {
  name: 'tenants',
  summary: 'Create and list the HTTP service’s tenants',
  usage:
    'evroom tenants create ID --tier free|pro|scale|enterprise [--database URL] [--json]\n       evroom tenants list [--database URL] [--json]',
  description: [
    'A tenant is who the service issues receipts for. Its tier sets its quota (free 100 a day,',
    'pro 50,000 a month, scale and enterprise unlimited) and the prefix of its API keys.',
    'ID: 1 to 64 characters from A-Z a-z 0-9 . _ -',
    ...DATABASE_HELP,
  ],
  options: {
    ...DATABASE_OPTION,
    tier: { type: 'string', value: 'TIER', help: `the tier: ${TIERS.join(', ')}` },
    json: { type: 'boolean', help: 'print JSON' },
  },
  exitCodes: ['0  done', '2  refused (nothing changed), usage or I/O error'],
  examples: [
    'evroom tenants create acme --tier pro',
    'evroom tenants list --json',
    'evroom tenants list --database "$EVROOM_DATABASE_URL"',
  ],
};

export const apikeysSpec: CommandSpec = {
  name: 'apikeys',
  summary: 'Issue, list, revoke, buy and redeem API keys of the HTTP service',
  usage: `evroom apikeys issue --tenant ID [--scope partner] [--database URL] [--json]\n       evroom apikeys list [--tenant ID] [--database URL] [--json]\n       evroom apikeys revoke PREFIX [--database URL]\n       evroom apikeys redeem --tx HASH --rpc URL [--token ADDRESS --treasury ADDRESS --network NAME] [--confirmations N] [--database URL] [--json]\n       evroom apikeys payments [--limit N] [--database URL] [--json]\n       ${BUYER_USAGE.join('\n       ')}`,
  description: [
    'issue   makes a key for a tenant (svc_<tier>_ + 32 random characters) and prints it ONCE;',
    '        only its SHA-256 is kept. --scope partner opens the pilot routes.',
    'list    the keys by prefix (never the keys), with tenant, tier, scopes and state',
    'revoke  a key by its prefix: requests with it are then 401',
    'redeem  observes one payment transaction by hand, as the service’s watcher does: checks it',
    '        on the chain at --rpc (status, token, treasury, amount, memo, confirmations), records it',
    '        and issues its one key (delivered to the buyer by the running service; never printed).',
    '        The token, treasury and network default to the embedded chain’s (data folder anchor/).',
    '        With --database it needs the service’s service/payment-key-secret in the data folder.',
    'payments  every payment seen, the latest first: state, tier, term, amount, contact, key prefix',
    '        and delivery (docs/payments.md)',
    ...BUYER_DESCRIPTION,
    'issue, list, revoke, redeem, payments:',
    ...DATABASE_HELP,
  ],
  options: {
    ...DATABASE_OPTION,
    tenant: { type: 'string', value: 'ID', help: 'the tenant' },
    scope: { type: 'string', multiple: true, value: 'SCOPE', help: 'a scope for the key (partner)' },
    ...PAYMENT_OPTIONS,
    ...BUYER_OPTIONS,
    json: { type: 'boolean', help: 'print JSON' },
  },
  exitCodes: [
    '0  done (buy: the key was issued and delivered)',
    '1  buy: the payment made no key (underpaid, memo_invalid, ...), or --wait ended first',
    '2  refused (nothing changed), usage or I/O error',
  ],
  examples: [
    'evroom apikeys issue --tenant acme --json',
    'evroom apikeys redeem --tx 0x5c…e1 --rpc http://127.0.0.1:8545',
    'evroom apikeys redeem --tx 0x5c…e1 --rpc https://rpc.example --token 0xA0b8… --treasury 0x7099… --network base',
    'evroom apikeys payments --json',
    'evroom apikeys buy --api http://127.0.0.1:8787 --rpc http://127.0.0.1:8545 --wallet-key-file wallet-key --tier pro --contact alice@example.com',
    'evroom apikeys pickup --api http://127.0.0.1:8787 --tx 0x5c…e1 --key-file ~/keys/ed25519.private.json',
    'evroom apikeys issue --tenant acme --scope partner',
    'evroom apikeys revoke svc_pro_Ab12Cd34',
  ],
};

function positionals(command: string, parsed: ParsedArguments, count: number, what: string): string[] {
  if (parsed.positionals.length !== count) {
    throw new CliError(
      count === 0 ? `${command}: unexpected argument "${parsed.positionals[0]}"` : `${command}: name ${what}`,
    );
  }
  return parsed.positionals;
}

/** Refuses options of other subcommands (apikeys shares one option list). */
function refuseOptions(command: string, parsed: ParsedArguments, names: readonly string[]): void {
  for (const name of names)
    if (parsed.values[name] !== undefined) throw new CliError(`${command}: --${name} is not an option of ${command}`);
}

/**
 * Runs an account operation on the service's store: the database of --database (or
 * EVROOM_DATABASE_URL), else the data folder's ledger; the store is opened (and a database
 * migrated) first and closed after.
 */
function withCliStore<T>(
  command: string,
  parsed: ParsedArguments,
  run: (store: ServiceStore) => Promise<T>,
): Promise<T> {
  return withServiceStore(command, databaseUrlOf(command, parsed), (store) => run(store));
}

function when(millis: number | null): string {
  return millis === null ? '-' : new Date(millis).toISOString();
}

/** Runs `evroom tenants`. */
export async function runTenants(argv: readonly string[], terminal: Terminal): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== undefined && sub.startsWith('-')) parseCommandArguments(tenantsSpec, argv);
  const parsed = parseCommandArguments(tenantsSpec, rest);
  const json = flag(parsed, 'json');
  switch (sub) {
    case 'create': {
      const [id] = positionals('tenants create', parsed, 1, 'the tenant id');
      const tier = optionValue(parsed, 'tier');
      if (tier === undefined) throw new CliError(`tenants create: give the tier with --tier (${TIERS.join(', ')})`);
      if (!(TIERS as readonly string[]).includes(tier))
        throw new CliError(`tenants create: --tier must be one of ${TIERS.join(', ')}, not "${tier}"`);
      const tenant = await withCliStore('tenants create', parsed, (store) =>
        createTenant(store, id as string, tier as Tier),
      );
      writeLine(terminal.out, json ? JSON.stringify(tenant) : `Created tenant ${tenant.id} (${tenant.tier}).`);
      return 0;
    }
    case 'list': {
      positionals('tenants list', parsed, 0, '');
      const list = await withCliStore('tenants list', parsed, (store) => tenants(store));
      if (json) writeLine(terminal.out, JSON.stringify({ tenants: list }));
      else if (list.length === 0)
        writeLine(terminal.out, 'No tenants yet. Create one: evroom tenants create ID --tier pro');
      else
        for (const tenant of list)
          writeLine(terminal.out, `${tenant.id.padEnd(24)} ${tenant.tier.padEnd(10)} since ${when(tenant.created_at)}`);
      return 0;
    }
    case undefined:
      throw new CliError('tenants: name a subcommand: create or list. See: evroom tenants --help');
    default:
      throw new CliError(`tenants: unknown subcommand '${sub}'; use create or list. See: evroom tenants --help`);
  }
}

/** Runs `evroom apikeys`. */
export async function runApikeys(argv: readonly string[], terminal: Terminal): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== undefined && sub.startsWith('-')) parseCommandArguments(apikeysSpec, argv);
  const parsed = parseCommandArguments(apikeysSpec, rest);
  const json = flag(parsed, 'json');
  if (sub === 'redeem' || sub === 'payments') refuseOptions(`apikeys ${sub}`, parsed, ['tenant', 'scope']);
  else if (sub === 'buy' || sub === 'pickup') refuseOptions(`apikeys ${sub}`, parsed, ['database']);
  else if (sub === 'issue' || sub === 'list' || sub === 'revoke')
    refuseOptions(`apikeys ${sub}`, parsed, Object.keys(PAYMENT_OPTIONS));
  switch (sub) {
    case 'issue': {
      positionals('apikeys issue', parsed, 0, '');
      const tenant = optionValue(parsed, 'tenant');
      if (tenant === undefined) throw new CliError('apikeys issue: name the tenant with --tenant ID');
      const { key, record } = await withCliStore('apikeys issue', parsed, (store) =>
        issueApiKey(store, tenant, optionValues(parsed, 'scope')),
      );
      if (json) {
        writeLine(
          terminal.out,
          JSON.stringify({
            key,
            tenant_id: record.tenant_id,
            tier: record.tier,
            prefix: record.prefix,
            scopes: record.scopes,
          }),
        );
      } else {
        writeLine(terminal.out, key);
        writeLine(
          terminal.err,
          `API key for ${record.tenant_id} (${record.tier}${record.scopes.length ? `, scopes: ${record.scopes.join(', ')}` : ''}), prefix ${record.prefix}.`,
        );
        writeLine(terminal.err, 'It is shown this once and kept only as its SHA-256: store it now.');
      }
      return 0;
    }
    case 'list': {
      positionals('apikeys list', parsed, 0, '');
      const list = await withCliStore('apikeys list', parsed, (store) => apiKeys(store, optionValue(parsed, 'tenant')));
      if (json) writeLine(terminal.out, JSON.stringify({ keys: list }));
      else if (list.length === 0)
        writeLine(terminal.out, 'No API keys yet. Issue one: evroom apikeys issue --tenant ID');
      else {
        for (const key of list) {
          const state =
            key.revoked_at !== null
              ? `revoked ${when(key.revoked_at)}`
              : key.expires_at === undefined
                ? 'active'
                : key.expires_at <= Date.now()
                  ? `expired ${when(key.expires_at)}`
                  : `active until ${when(key.expires_at)}`;
          writeLine(
            terminal.out,
            `${key.prefix.padEnd(20)} ${key.tenant_id.padEnd(20)} ${key.tier.padEnd(10)} ${(key.scopes.join(',') || '-').padEnd(8)} ${state}`,
          );
        }
      }
      return 0;
    }
    case 'revoke': {
      const [prefix] = positionals('apikeys revoke', parsed, 1, 'the key by its prefix (see evroom apikeys list)');
      const record = await withCliStore('apikeys revoke', parsed, (store) =>
        revokeKeyByPrefix(store, prefix as string),
      );
      writeLine(
        terminal.out,
        json
          ? JSON.stringify(record)
          : `Revoked ${record.prefix} of ${record.tenant_id}; requests with it are refused (401).`,
      );
      return 0;
    }
    case 'redeem':
      positionals('apikeys redeem', parsed, 0, '');
      return runRedeem(parsed, terminal);
    case 'payments':
      positionals('apikeys payments', parsed, 0, '');
      return runPayments(parsed, terminal);
    case 'buy':
      return runApikeysBuy(parsed, terminal);
    case 'pickup':
      return runApikeysPickup(parsed, terminal);
    case undefined:
      throw new CliError(
        'apikeys: name a subcommand: issue, list, revoke, redeem, payments, buy or pickup. See: evroom apikeys --help',
      );
    default:
      throw new CliError(
        `apikeys: unknown subcommand '${sub}'; use issue, list, revoke, redeem, payments, buy or pickup. See: evroom apikeys --help`,
      );
  }
}
