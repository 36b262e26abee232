/**
 * `GET /pricing` (spec section 8 as data) and `POST /v1/rubric/select` (PROTOCOL section 3).
 */
import type { FastifyInstance } from 'fastify';
import { recommendProfile, type RubricInput } from '../../operations/rubric';
import { readBody } from '../body';
import { serviceContext } from '../context';

/** Every rubric answer says what it is not. */
export const RUBRIC_DISCLAIMER =
  'A recommendation from the published rubric, not regulatory approval: check the retention and evidence rules that apply to you.';

const DEPLOYMENT_NOTE = 'Declared design target; requires deployment confirmation.';

/** The price ladder, exactly as spec section 8 states it. */
export const PRICING = {
  currency: 'USDC',
  annual_prepay: 'Annual prepay is 10 times the monthly rate.',
  tiers: [
    {
      tier: 'free',
      api_key_prefix: null,
      receipts: { per_day: 100 },
      anchored: 'none',
      verifier: 'local only',
      price: null,
    },
    {
      tier: 'pro',
      api_key_prefix: 'svc_pro_',
      receipts: { per_month: 50000 },
      anchored: 'on demand (anchor flag)',
      verifier: 'priority hosted',
      price: { monthly: 99, annual: 990 },
    },
    {
      tier: 'scale',
      api_key_prefix: 'svc_scale_',
      receipts: 'unlimited',
      anchored: 'every receipt',
      verifier: 'dedicated SLA',
      price: { monthly: 499, annual: 4990 },
    },
    {
      tier: 'enterprise',
      api_key_prefix: 'svc_ent_',
      receipts: 'unlimited',
      anchored: 'every receipt',
      verifier: 'on-prem image',
      price: { annual_from: 5000, by_contact: true },
    },
  ],
  profiles: [
    { profile: 'nano', price_usd_per_call: 0.0001, max_bytes: 600, retention_days: 30, note: DEPLOYMENT_NOTE },
    { profile: 'standard', price_usd_per_call: 0.0008, max_bytes: 3072, retention_days: 365, note: DEPLOYMENT_NOTE },
    {
      profile: 'pq',
      price_usd_per_call: 0.0012,
      max_bytes: null,
      retention_days: 2557,
      retention_note: 'about 7 years',
      note: DEPLOYMENT_NOTE,
    },
  ],
} as const;

const RUBRIC_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['intent'],
  properties: {
    intent: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      description: 'free_verify, commerce, regulated, or another word',
    },
    amount_usd: { type: 'number', minimum: 0, maximum: 1e12 },
    counterparty: { type: 'string', minLength: 1, maxLength: 256 },
    retention_days: { type: 'integer', minimum: 0, maximum: 100000 },
  },
} as const;

/** /pricing and /v1/rubric/select, as a plugin. */
export async function pricingRubricRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/pricing',
    {
      schema: {
        summary:
          'The machine-readable price ladder (spec section 8), and per chain where API keys are bought: token, decimals, treasury and each tier’s price in the token’s units',
        tags: ['pricing'],
      },
    },
    async () => ({ ...PRICING, chains: serviceContext(app).pricingChains }),
  );
  app.post(
    '/v1/rubric/select',
    { schema: { summary: 'Recommend a receipt profile', tags: ['pricing'], body: RUBRIC_SCHEMA } },
    async (request) => ({
      ...recommendProfile(readBody<RubricInput>(request, RUBRIC_SCHEMA)),
      disclaimer: RUBRIC_DISCLAIMER,
    }),
  );
}
