/**
 * The pilot routes (PROTOCOL section 11), open only to keys with the `partner` scope:
 * `POST /v1/rosetta/normalize` (alias `/v1/rosetta/translate`) and `POST /v1/prospector/qualify`.
 *
 * Both answer deterministically from their input and the shipped data; the work is in
 * operations/rosetta.ts and operations/prospector.ts, and this door only checks the key, reads
 * the body strictly and hands it over.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../../operations/service-admin';
import { qualifySurface, type Surface } from '../../operations/prospector';
import {
  MAX_ROSETTA_ITEMS,
  MAX_TERM_LENGTH,
  normalizeObligations,
  ROSETTA_OBLIGATION_IDS,
  ROSETTA_REGIMES,
  type RosettaRequest,
} from '../../operations/rosetta';
import { readBody } from '../body';
import { serviceContext, type ServiceContext } from '../context';
import { HttpError } from '../errors';

/** The scope that opens the pilot routes. */
export const PARTNER_SCOPE = 'partner';

/** The body of normalize and translate: obligations by id, or free-text terms. */
export const ROSETTA_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['from_regime'],
  properties: {
    from_regime: { type: 'string', enum: [...ROSETTA_REGIMES], description: 'The regime the caller speaks from' },
    obligations: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_ROSETTA_ITEMS,
      uniqueItems: true,
      items: { type: 'string', enum: [...ROSETTA_OBLIGATION_IDS] },
      description: 'Obligation ids of the mapping table',
    },
    terms: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_ROSETTA_ITEMS,
      items: { type: 'string', minLength: 1, maxLength: MAX_TERM_LENGTH },
      description: 'Free-text terms, matched to obligations by the table’s synonyms (case-insensitive, whole words)',
    },
  },
  // Each branch names its property (as true) because Ajv's strict mode wants a required name declared beside it.
  oneOf: [
    { properties: { obligations: true }, required: ['obligations'] },
    { properties: { terms: true }, required: ['terms'] },
  ],
} as const;

/** The body of qualify. */
export const PROSPECTOR_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['surface'],
  properties: {
    surface: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 128, description: 'What the surface is called' },
        sample_payload: {
          type: 'string',
          minLength: 1,
          maxLength: 1_000_000,
          description:
            'A sample transaction payload as JSON text (a string, so it is parsed by our strict parser here)',
        },
        signer: {
          type: 'string',
          minLength: 1,
          maxLength: 64,
          description: 'The signature algorithm the surface signs with (Ed25519 or ML-DSA-65 pass)',
        },
        clock_source: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
          description: 'Where the surface’s timestamps come from (stated, not checked)',
        },
        ids_stable: {
          type: 'boolean',
          description: 'Whether transaction ids stay the same across retries and replays',
        },
        retention_days: {
          type: 'integer',
          minimum: 0,
          maximum: 36_500,
          description: 'How long receipts must be kept (over 365 days: pq)',
        },
      },
    },
  },
} as const;

/**
 * The caller of a pilot route: a valid key (401 otherwise) that carries the partner scope.
 *
 * @throws HttpError 401 unauthorized, 403 partner_only
 */
export async function requirePartner(request: FastifyRequest, context: ServiceContext): Promise<Caller> {
  const caller = await context.requireCaller(request);
  if (!caller.key.scopes.includes(PARTNER_SCOPE)) {
    throw new HttpError(
      403,
      'partner_only',
      'The pilot routes are open to partners only: this API key does not carry the partner scope.',
    );
  }
  return caller;
}

/** The pilot routes, as a plugin. */
export async function pilotRoutes(app: FastifyInstance): Promise<void> {
  const context = serviceContext(app);
  const rosetta = {
    schema: {
      summary:
        'Map record-keeping obligations among the EU AI Act, NIST AI RMF, ISO/IEC 42001 and the UK principles (pilot, partners only; not legal advice)',
      tags: ['pilot'],
      body: ROSETTA_BODY_SCHEMA,
      security: [{ apiKey: [] }],
    },
  };
  async function normalize(request: FastifyRequest): Promise<unknown> {
    await requirePartner(request, context);
    return normalizeObligations(readBody<RosettaRequest>(request, ROSETTA_BODY_SCHEMA));
  }
  app.post('/v1/rosetta/normalize', rosetta, normalize);
  app.post(
    '/v1/rosetta/translate',
    { ...rosetta, schema: { ...rosetta.schema, summary: 'Alias of /v1/rosetta/normalize' } },
    normalize,
  );

  app.post(
    '/v1/prospector/qualify',
    {
      schema: {
        summary: 'Is a transaction surface ready for receipts? (pilot, partners only)',
        tags: ['pilot'],
        body: PROSPECTOR_BODY_SCHEMA,
        security: [{ apiKey: [] }],
      },
    },
    async (request) => {
      await requirePartner(request, context);
      const body = readBody<{ surface: Surface }>(request, PROSPECTOR_BODY_SCHEMA);
      return qualifySurface(body.surface, context.workspace.crypto);
    },
  );
}
