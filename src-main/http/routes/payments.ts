/**
 * `GET /v1/payments/:tx` (where a payment stands) and `GET /v1/apikeys/pickup/:tx` (the key
 * bought for a did:key, sealed to it): PROTOCOL section 13, docs/payments.md.
 *
 * Both are public: a transaction hash is public on its chain, so neither answer holds anything
 * the chain does not show, except the sealed key, which only the did:key's holder can open. The
 * status never names the contact, the tenant or the key.
 */
import type { FastifyInstance } from 'fastify';
import {
  DELIVERY_CHANNELS,
  DELIVERY_STATES,
  PAYMENT_STATES,
  PAYMENT_TERMS,
  MEMO_TIERS,
} from '../../../src-shared/api/payments';
import { OperationError } from '../../operations/errors';
import { paymentStatus, sealedEnvelope } from '../../operations/payments';
import { serviceContext } from '../context';

const TX_PARAMS = {
  type: 'object',
  required: ['tx'],
  properties: {
    tx: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$', description: 'The transaction hash: 0x and 64 hex digits' },
  },
} as const;

const STATUS_SCHEMA = {
  type: 'object',
  required: ['tx_hash', 'network', 'state', 'tier', 'term', 'expires_at', 'delivery'],
  properties: {
    tx_hash: { type: 'string' },
    network: { type: 'string' },
    state: { type: 'string', enum: [...PAYMENT_STATES] },
    tier: { type: ['string', 'null'], enum: [...MEMO_TIERS, null] },
    term: { type: ['string', 'null'], enum: [...PAYMENT_TERMS, null] },
    expires_at: { type: ['string', 'null'], description: 'When the paid term ends (RFC 3339), for an issued key' },
    delivery: {
      type: 'object',
      required: ['channel', 'state'],
      properties: {
        channel: { type: ['string', 'null'], enum: [...DELIVERY_CHANNELS, null] },
        state: { type: 'string', enum: [...DELIVERY_STATES] },
      },
    },
  },
} as const;

/** The payment routes, as a plugin. */
export async function paymentRoutes(app: FastifyInstance): Promise<void> {
  const context = serviceContext(app);

  app.get(
    '/v1/payments/:tx',
    {
      schema: {
        summary: 'Where a payment for an API key stands (never its contact or key)',
        tags: ['payments'],
        params: TX_PARAMS,
        response: { 200: STATUS_SCHEMA },
      },
    },
    async (request) => {
      const tx = (request.params as { tx: string }).tx;
      const view = await paymentStatus(context.store, tx);
      if (view === undefined)
        throw new OperationError(
          'not_found',
          'not_found',
          `This service has not seen the transaction ${tx.toLowerCase()} (yet): a payment is seen once it is mined.`,
        );
      return {
        tx_hash: view.tx_hash,
        network: view.network,
        state: view.state,
        tier: view.tier,
        term: view.term,
        expires_at: view.expires_at === null ? null : new Date(view.expires_at).toISOString(),
        delivery: { channel: view.delivery.channel, state: view.delivery.state },
      };
    },
  );

  app.get(
    '/v1/apikeys/pickup/:tx',
    {
      schema: {
        summary: 'The API key bought for a did:key, sealed to it (HPKE; only its holder opens it)',
        tags: ['payments'],
        params: TX_PARAMS,
      },
    },
    async (request, reply) => {
      const envelope = await sealedEnvelope(context.store, (request.params as { tx: string }).tx);
      return reply.header('cache-control', 'no-store').send(envelope);
    },
  );
}
