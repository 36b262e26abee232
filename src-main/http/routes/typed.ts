/**
 * The typed-contract verify routes (`POST /v1/verify/<kind>`, seven kinds, PROTOCOL section 6)
 * and the typed post-quantum alias `POST /verify` (section 7). Each answers 200 with the report.
 *
 * `POST /verify` takes what the typed signer's own `/verify` takes: `{envelope, fragments}` or
 * `{envelope, fragments_canon}` (hive-mcp-spire sends the sign answer's `fragments_canon` as
 * `fragments`), and also the sign answer as a whole or a bare envelope. It answers our report
 * (PROTOCOL section 1), not the signer's `{valid, reasons}`. Another object of the same signer
 * is answered with its UNSUPPORTED report; any other document is MALFORMED `wrong_route`.
 */
import type { FastifyInstance } from 'fastify';
import { TYPED_ROUTE_KINDS, verifyTypedRequest, type TypedRouteKind } from '../../../src-shared/formats/typed';
import { singleErrorReport } from '../../../src-shared/verify/report-builder';
import { verifyReport } from '../../operations/verify';
import { bodyBytes } from '../body';
import { serviceContext, serviceVerifyContext } from '../context';

/** The seven typed routes and the typed-PQ alias, as a plugin. */
export async function typedRoutes(app: FastifyInstance): Promise<void> {
  const context = serviceContext(app);
  for (const kind of Object.keys(TYPED_ROUTE_KINDS) as TypedRouteKind[]) {
    app.post(
      `/v1/verify/${kind}`,
      {
        schema: {
          summary: `Verify a ${TYPED_ROUTE_KINDS[kind]} contract: {contract, parents?}`,
          tags: ['typed'],
          body: {},
        },
      },
      async (request) => verifyTypedRequest(bodyBytes(request), kind, serviceVerifyContext(context)),
    );
  }
  app.post(
    '/verify',
    {
      schema: {
        summary: 'Verify a typed post-quantum attestation {envelope, fragments | fragments_canon}',
        tags: ['typed'],
        body: {},
      },
    },
    async (request) => {
      const report = verifyReport(bodyBytes(request), serviceVerifyContext(context));
      // This route is for typed post-quantum envelopes; another document is not what it checks.
      const unsupported = report.errors.some((error) => error.code === 'unsupported_format');
      if (report.format !== 'typed-pq' && !unsupported) {
        return singleErrorReport('typed-pq', 'MALFORMED', 'schema', {
          code: 'wrong_route',
          path: '',
          message: `This route verifies typed post-quantum attestations ({envelope, fragments} with envelope.object afir.attestation); the document is ${report.format}. Use POST /v1/receipt/verify.`,
        });
      }
      return report;
    },
  );
}
