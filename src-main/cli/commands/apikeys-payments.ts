/**
 * `evroom apikeys redeem --tx HASH` (one payment observed by hand, as the service's watcher
 * would) and `evroom apikeys payments` (every payment with its state, for operators):
 * PROTOCOL section 13, docs/payments.md. Neither prints a key: the buyer's delivery holds it.
 * Both work on the service's store: `--database URL` (or EVROOM_DATABASE_URL) for a service on
 * PostgreSQL, from any machine holding its data folder's payment key secret.
 */
import type { PaymentView } from '../../../src-shared/api/payments';
import { formatUnits } from '../../../src-shared/api/payments';
import { checkPaymentKeySecret, listPayments, observePayment, redeemChain } from '../../operations/payments';
import { CliError } from '../cli-error';
import { flag, integerOption, optionValue, type ParsedArguments } from '../arguments';
import { writeLine, type Terminal } from '../terminal';
import { databaseUrlOf, withServiceStore } from './service-database';

/** The options `apikeys redeem` and `apikeys payments` add to `evroom apikeys`. */
export const PAYMENT_OPTIONS = {
  tx: { type: 'string', value: 'HASH', help: 'redeem, pickup: the payment transaction (0x and 64 hex digits)' },
  rpc: { type: 'string', value: 'URL', help: 'redeem, buy: the chain’s JSON-RPC (http or https)' },
  token: { type: 'string', value: 'ADDRESS', help: 'redeem: the stablecoin (default: the embedded chain’s)' },
  treasury: { type: 'string', value: 'ADDRESS', help: 'redeem: the treasury (with --token)' },
  network: { type: 'string', value: 'NAME', help: 'redeem: the service’s name of the chain (with --token)' },
  confirmations: { type: 'string', value: 'N', help: 'redeem: blocks deep before a key is issued (default 1)' },
  limit: { type: 'string', value: 'N', help: 'payments: how many, the latest first (1 to 1000, default 100)' },
} as const;

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function delivery(view: PaymentView): string {
  if (view.delivery.state === 'none') return '-';
  const channel = view.delivery.channel ?? '?';
  if (view.delivery.state === 'delivered') return `${channel} delivered`;
  return `${channel} pending${view.delivery.attempts > 0 ? ` (${view.delivery.attempts} tries)` : ''}`;
}

function summary(view: PaymentView): string[] {
  const lines = [`Payment ${view.tx_hash} on ${view.network}: ${view.state}.`];
  if (view.reason !== null) lines.push(view.reason);
  if (view.state === 'issued')
    lines.push(
      `Key ${view.key_prefix ?? ''}… of tenant ${view.tenant_id ?? ''}, paid until ${view.expires_at === null ? '-' : new Date(view.expires_at).toISOString()}; delivery: ${delivery(view)} to ${view.delivery.to ?? '-'} (the running service delivers it).`,
    );
  if (view.state === 'pending_confirmations')
    lines.push('Not confirmed yet: run this again once the block is deep enough (the service’s watcher does so too).');
  return lines;
}

/**
 * `evroom apikeys redeem`.
 *
 * @returns the exit code (0: observed, whatever its state)
 */
export async function runRedeem(parsed: ParsedArguments, terminal: Terminal): Promise<number> {
  const tx = optionValue(parsed, 'tx');
  if (tx === undefined) throw new CliError('apikeys redeem: name the transaction with --tx HASH');
  if (!TX_HASH.test(tx))
    throw new CliError(`apikeys redeem: --tx must be 0x and 64 hex digits, got "${tx.slice(0, 80)}"`);
  const rpc = optionValue(parsed, 'rpc');
  if (rpc === undefined)
    throw new CliError('apikeys redeem: name the chain’s JSON-RPC with --rpc URL (it starts no chain itself)');
  if (!/^https?:\/\/\S+$/.test(rpc)) throw new CliError('apikeys redeem: --rpc must be an http or https URL');
  const token = optionValue(parsed, 'token');
  const treasury = optionValue(parsed, 'treasury');
  const network = optionValue(parsed, 'network');
  for (const [name, value] of [
    ['token', token],
    ['treasury', treasury],
  ] as const)
    if (value !== undefined && !ADDRESS.test(value))
      throw new CliError(`apikeys redeem: --${name} must be 0x and 40 hex digits, got "${value.slice(0, 80)}"`);
  if (network !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(network))
    throw new CliError('apikeys redeem: --network is 1 to 64 characters from A-Z a-z 0-9 . _ -');
  const named = [token, treasury, network].filter((value) => value !== undefined).length;
  if (named !== 0 && named !== 3)
    throw new CliError(
      'apikeys redeem: give --token, --treasury and --network together (the service’s chain), or none of them for the embedded chain’s',
    );
  const confirmations = integerOption('apikeys redeem', parsed, 'confirmations', 1, 1000) ?? 1;
  if (optionValue(parsed, 'limit') !== undefined) throw new CliError('apikeys redeem: --limit is for apikeys payments');
  const view = await withServiceStore(
    'apikeys redeem',
    databaseUrlOf('apikeys redeem', parsed),
    async (store, workspace) => {
      // Before anything is recorded: a key issued under another secret than the nodes' would not work.
      await checkPaymentKeySecret(store, workspace, Date.now());
      const chain = await redeemChain(workspace, {
        rpcUrl: rpc,
        ...(named === 3 ? { token, treasury, network } : {}),
      });
      return observePayment(store, workspace, chain, tx, { confirmations });
    },
  );
  if (flag(parsed, 'json')) writeLine(terminal.out, JSON.stringify(view));
  else for (const line of summary(view)) writeLine(terminal.out, line);
  return 0;
}

/**
 * `evroom apikeys payments`.
 *
 * @returns the exit code
 */
export async function runPayments(parsed: ParsedArguments, terminal: Terminal): Promise<number> {
  for (const name of ['tx', 'rpc', 'token', 'treasury', 'network', 'confirmations'])
    if (optionValue(parsed, name) !== undefined)
      throw new CliError(`apikeys payments: --${name} is for apikeys redeem`);
  const limit = integerOption('apikeys payments', parsed, 'limit', 1, 1000) ?? 100;
  const list = await withServiceStore('apikeys payments', databaseUrlOf('apikeys payments', parsed), (store) =>
    listPayments(store, { limit }),
  );
  if (flag(parsed, 'json')) {
    writeLine(terminal.out, JSON.stringify({ payments: list }));
    return 0;
  }
  if (list.length === 0) {
    writeLine(terminal.out, 'No payments seen yet. Buyers pay with: evroom apikeys buy (docs/payments.md)');
    return 0;
  }
  writeLine(
    terminal.out,
    `${'TX'.padEnd(14)} ${'STATE'.padEnd(22)} ${'TIER'.padEnd(10)} ${'TERM'.padEnd(5)} ${'AMOUNT'.padEnd(16)} ${'CONTACT'.padEnd(32)} ${'KEY'.padEnd(20)} DELIVERY`,
  );
  for (const view of list) {
    writeLine(
      terminal.out,
      [
        `${view.tx_hash.slice(0, 10)}…${view.tx_hash.slice(-3)}`.padEnd(14),
        view.state.padEnd(22),
        (view.tier ?? '-').padEnd(10),
        (view.term ?? '-').padEnd(5),
        (view.amount === null ? '-' : formatUnits(BigInt(view.amount))).padEnd(16),
        (view.contact ?? '-').padEnd(32),
        (view.key_prefix ?? '-').padEnd(20),
        delivery(view),
      ].join(' '),
    );
    // Why a key has not reached its buyer yet, under its row (never the key: the watcher keeps it out).
    if (view.delivery.state === 'pending' && view.delivery.last_error !== null)
      writeLine(terminal.out, `${''.padEnd(15)}last try: ${view.delivery.last_error}`);
  }
  return 0;
}
