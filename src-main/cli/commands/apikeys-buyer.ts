/**
 * The buyer's side of API keys bought on chain (docs/payments.md): `evroom apikeys buy` pays a
 * service's treasury with the memo and waits for the key's delivery; `evroom apikeys pickup`
 * fetches a key sealed to the buyer's did:key and opens it with the buyer's private key file.
 *
 * The options live in `apikeysSpec` (accounts.ts), beside the operator's subcommands.
 */
import type { OptionSpec } from '../arguments';
import { flag, optionValue, type ParsedArguments } from '../arguments';
import { CliError } from '../cli-error';
import { writeLine, type Terminal } from '../terminal';
import { purchaseKey } from '../../operations/payment-purchase';
import { paymentStatusAt, pricingChains, sealedKeyAt, type PaymentStatusAnswer } from '../../operations/payment-client';
import { openSealedKeyWithKeyFile } from '../../operations/payment-pickup';
import { formatUnits } from '../../../src-shared/api/payments';

/** The options `buy` and `pickup` add to `evroom apikeys`. */
export const BUYER_OPTIONS: Record<string, OptionSpec> = {
  api: { type: 'string', value: 'URL', help: 'buy, pickup: the service (its /pricing names the token and treasury)' },
  'wallet-key-file': {
    type: 'string',
    value: 'FILE',
    help: 'buy: the paying account’s private key (0x and 64 hex, mode 600)',
  },
  tier: { type: 'string', value: 'TIER', help: 'buy: pro or scale (enterprise is sold by contact)' },
  contact: {
    type: 'string',
    value: 'C',
    help: 'buy: where the key goes: an e-mail address, a domain (postmaster@) or a did:key',
  },
  'issuer-did': { type: 'string', value: 'DID', help: 'buy: the DID you will issue receipts as (in the memo)' },
  annual: { type: 'boolean', help: 'buy: pay for a year (ten months’ price)' },
  wait: {
    type: 'string',
    value: 'SECONDS',
    help: 'buy: how long to wait for the key’s delivery after paying (default 300; 0: do not wait)',
  },
  'key-file': {
    type: 'string',
    value: 'FILE',
    help: 'pickup: your Ed25519 private key file (evroom keys new) whose did:key was the contact',
  },
};

/** The usage lines of `buy` and `pickup`. */
export const BUYER_USAGE = [
  'evroom apikeys buy --api URL --rpc URL --wallet-key-file FILE --tier pro|scale --contact C [--issuer-did DID] [--annual] [--wait SECONDS] [--json]',
  'evroom apikeys pickup --api URL --tx HASH --key-file FILE [--json]',
];

/** The description lines of `buy` and `pickup`. */
export const BUYER_DESCRIPTION = [
  'buy     pays a service for a key on chain: the tier’s price in its stablecoin to its treasury,',
  '        with the memo (docs/payments.md), from the account of --wallet-key-file; then waits',
  '        until the service has issued the key and delivered it to the contact. It never prints',
  '        the key: it goes to the contact (mail) or is sealed to the did:key contact.',
  'pickup  fetches the key sealed to your did:key for a payment and opens it with your private',
  '        key file; prints the key (the only place it is ever shown).',
];

const STATES_WITHOUT_KEY = new Set([
  'underpaid',
  'memo_invalid',
  'wrong_token',
  'contact_sales',
  'reverted',
  'dropped',
]);

function required(parsed: ParsedArguments, option: string, command: string, what: string): string {
  const value = optionValue(parsed, option);
  if (value === undefined || value === '') throw new CliError(`apikeys ${command}: give ${what} with --${option}`);
  return value;
}

function describeStatus(status: PaymentStatusAnswer): string {
  const term = status.term === null ? '' : `, a ${status.term}`;
  const until = status.expires_at === null ? '' : ` until ${new Date(status.expires_at).toISOString()}`;
  const delivery =
    status.delivery.state === 'delivered'
      ? status.delivery.channel === 'sealed'
        ? '; the key is sealed to your did:key: fetch it with evroom apikeys pickup'
        : '; the key was sent to the contact'
      : status.delivery.state === 'pending'
        ? '; delivery to the contact is under way'
        : '';
  return `${status.state}${status.tier === null ? '' : ` (${status.tier}${term}${until})`}${delivery}`;
}

/** Runs `evroom apikeys buy`. */
export async function runApikeysBuy(parsed: ParsedArguments, terminal: Terminal): Promise<number> {
  if (parsed.positionals.length > 0) throw new CliError(`apikeys buy: unexpected argument "${parsed.positionals[0]}"`);
  const api = required(parsed, 'api', 'buy', 'the service');
  const rpc = required(parsed, 'rpc', 'buy', 'the chain’s JSON-RPC');
  const walletKeyFile = required(parsed, 'wallet-key-file', 'buy', 'the paying account’s key file');
  const tier = required(parsed, 'tier', 'buy', 'the tier (pro or scale)');
  if (tier === 'enterprise')
    throw new CliError(
      'apikeys buy: enterprise is sold by contact, not on chain (a payment with an enterprise memo is recorded for sales and issues no key)',
    );
  if (tier !== 'pro' && tier !== 'scale') throw new CliError(`apikeys buy: --tier must be pro or scale, not "${tier}"`);
  const contact = required(parsed, 'contact', 'buy', 'where the key goes (an e-mail address, a domain or a did:key)');
  const issuerDid = optionValue(parsed, 'issuer-did');
  const waitText = optionValue(parsed, 'wait') ?? '300';
  if (!/^\d{1,6}$/.test(waitText) || Number(waitText) > 86_400)
    throw new CliError(`apikeys buy: --wait must be whole seconds from 0 to 86400, not '${waitText}'`);
  const waitMs = Number(waitText) * 1000;
  const json = flag(parsed, 'json');
  const annual = flag(parsed, 'annual');

  const chains = await pricingChains(api);
  if (chains.length === 0)
    throw new CliError(`apikeys buy: the service at ${api} sells no keys on chain (its /pricing lists no chains)`);
  const paid = await purchaseKey({
    rpcUrl: rpc,
    walletKeyFile,
    chains,
    tier,
    contact,
    ...(issuerDid === undefined ? {} : { issuerDid }),
    annual,
  });
  writeLine(
    terminal.err,
    `Paid ${formatUnits(paid.amount)} to ${paid.treasury} on ${paid.network} in transaction ${paid.tx_hash}.`,
  );
  let status: PaymentStatusAnswer | undefined;
  const until = Date.now() + waitMs;
  let said = '';
  for (;;) {
    status = await paymentStatusAt(api, paid.tx_hash);
    const now = status === undefined ? 'not seen by the service yet' : describeStatus(status);
    if (now !== said) writeLine(terminal.err, `Payment: ${now}.`);
    said = now;
    const settled =
      status !== undefined &&
      (STATES_WITHOUT_KEY.has(status.state) || (status.state === 'issued' && status.delivery.state === 'delivered'));
    if (settled || Date.now() >= until) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  if (json)
    writeLine(terminal.out, JSON.stringify({ tx_hash: paid.tx_hash, network: paid.network, status: status ?? null }));
  else writeLine(terminal.out, paid.tx_hash);
  if (status === undefined || (status.state !== 'issued' && !STATES_WITHOUT_KEY.has(status.state))) {
    if (waitMs > 0)
      writeLine(
        terminal.err,
        `Still waiting after ${waitText} s; ask again with: curl ${api.replace(/\/+$/, '')}/v1/payments/${paid.tx_hash}`,
      );
    return waitMs > 0 ? 1 : 0;
  }
  if (STATES_WITHOUT_KEY.has(status.state)) return 1;
  return status.delivery.state === 'delivered' ? 0 : 1;
}

/** Runs `evroom apikeys pickup`. */
export async function runApikeysPickup(parsed: ParsedArguments, terminal: Terminal): Promise<number> {
  if (parsed.positionals.length > 0)
    throw new CliError(`apikeys pickup: unexpected argument "${parsed.positionals[0]}"`);
  const api = required(parsed, 'api', 'pickup', 'the service');
  const tx = required(parsed, 'tx', 'pickup', 'the payment’s transaction hash');
  if (!/^0x[0-9a-fA-F]{64}$/.test(tx))
    throw new CliError(`apikeys pickup: --tx must be 0x and 64 hex characters, not '${tx}'`);
  const keyFile = required(parsed, 'key-file', 'pickup', 'your Ed25519 private key file');
  const envelope = await sealedKeyAt(api, tx);
  const opened = await openSealedKeyWithKeyFile(envelope, keyFile, tx);
  if (flag(parsed, 'json'))
    writeLine(
      terminal.out,
      JSON.stringify({ key: opened.key, tx_hash: tx.toLowerCase(), recipient: opened.recipient }),
    );
  else {
    writeLine(terminal.out, opened.key);
    writeLine(
      terminal.err,
      `Opened the key sealed to ${opened.recipient}. Store it now: it is not kept in clear anywhere.`,
    );
  }
  return 0;
}
