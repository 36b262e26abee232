/**
 * Wearable measurement receipts (PROTOCOL section 2): `POST /v1/wearable/receipts` issues one
 * from the caller's fields (201; 409 when the observation nonce was used before for the device)
 * and `POST /v1/wearable/verify` answers the report.
 */
import type { FastifyInstance } from 'fastify';
import type { WearableCallerFields } from '../../../src-shared/formats/wearable';
import { issueWearableReceipt } from '../../operations/service-issue';
import { verifyReport } from '../../operations/verify';
import { bodyBytes, readBody } from '../body';
import { serviceContext, serviceVerifyContext } from '../context';

/** Any JSON object: the wearable issuer checks every member itself, each with its pointer. */
const CALLER_FIELDS_SCHEMA = {
  type: 'object',
  description: 'Every caller field of spec 2.2; no derived field, no verdict',
} as const;

/** The wearable routes, as a plugin. */
export async function wearableRoutes(app: FastifyInstance): Promise<void> {
  const context = serviceContext(app);
  app.post(
    '/v1/wearable/receipts',
    {
      schema: {
        summary: 'Issue a wearable measurement receipt from the caller fields',
        tags: ['wearable'],
        body: CALLER_FIELDS_SCHEMA,
        security: [{ apiKey: [] }],
      },
    },
    async (request, reply) => {
      const caller = await context.requireCaller(request);
      const fields = readBody<WearableCallerFields>(request, CALLER_FIELDS_SCHEMA);
      const issued = await issueWearableReceipt(context.workspace, context.signer, fields, {
        store: context.store,
        now: context.now(),
        ref: `tenant:${caller.tenant.id}`,
        ...context.issueWorkers(request),
      });
      return reply.code(201).send(issued.document);
    },
  );
  app.post(
    '/v1/wearable/verify',
    { schema: { summary: 'Verify a wearable measurement receipt', tags: ['wearable'], body: {} } },
    async (request) => verifyReport(bodyBytes(request), serviceVerifyContext(context)),
  );
}
