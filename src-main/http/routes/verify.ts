/**
 * `POST /v1/receipt/verify` (alias `/v1/receipts/verify`): any supported document, or
 * `{document, keys?}`, answered 200 with its report whatever the status (PROTOCOL section 3).
 *
 * The body is read with our strict parser: a duplicate member name is a MALFORMED report, never
 * a silent last-wins. Keys given with the document, and the service's own listed keys, can
 * check signatures; they never make trust `trusted` (only the operator's pinned keys do).
 *
 * One key id names one key (PROTOCOL section 0): keys given with the document that define a
 * key_id of the trust store or of the service's listed keys as another key are refused (400
 * invalid_request, the pointer into `keys`), as `evroom verify` refuses such key files, so the
 * same document and keys never verify differently depending on where a key came from.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseJsonBytes } from '../../../src-shared/json';
import type { JsonNode } from '../../../src-shared/json/types';
import type { KeyEntry, VerifyContext } from '../../../src-shared/verify/context';
import { checkKeySources, KeyFileError, parseKeyFileTree } from '../../../src-shared/verify/key-file';
import type { Report } from '../../../src-shared/verify/report';
import { verifyParsed } from '../../../src-shared/verify/verify';
import { verifyReport } from '../../operations/verify';
import { workspaceVerifyContext } from '../../operations/workspace';
import { bodyBytes } from '../body';
import { HttpError } from '../errors';
import type { ServiceContext } from '../service';

/** The service's listed keys as verifier entries (no status: they confer no trust), made once per list. */
const listedKeyEntries = new WeakMap<ServiceContext['signer']['listed'], KeyEntry[]>();

function listedKeys(context: ServiceContext): KeyEntry[] {
  const listed = context.signer.listed;
  let entries = listedKeyEntries.get(listed);
  if (entries === undefined) {
    entries = listed.map((key) => ({ key_id: key.key_id, algorithm: key.algorithm, public_key: key.public_key }));
    listedKeyEntries.set(listed, entries);
  }
  return entries;
}

/** The service's own keys, as keys that check signatures and confer no trust. */
export function serviceVerifyContext(context: ServiceContext, keys: readonly KeyEntry[] = []): VerifyContext {
  return workspaceVerifyContext(context.workspace, { advertised: [...listedKeys(context), ...keys], now: context.now() });
}

/**
 * Refuse keys sent with a document that give a key_id of the trust store, or of the service's
 * listed keys, another key (the rule and message of checkKeySources, as `evroom verify` applies
 * them to its key files). Each is checked against the sent keys alone, so a request is never
 * refused for something it did not send.
 *
 * @throws HttpError 400 `invalid_request`, its detail pointing at the sent key
 */
function checkSentKeys(context: ServiceContext, keys: readonly KeyEntry[], pinned: readonly KeyEntry[]): void {
  if (keys.length === 0) return;
  const sent = { name: 'the keys sent with the document', entries: keys };
  try {
    checkKeySources([{ name: "the service's trust store", entries: pinned }, sent]);
    checkKeySources([{ name: "the service's own keys (/v1/keys)", entries: listedKeys(context) }, sent]);
  } catch (error) {
    if (error instanceof KeyFileError) throw new HttpError(400, 'invalid_request', `keys: ${error.message}`, { details: [{ path: `/keys${error.path}`, message: error.message }] });
    throw error;
  }
}

function member(node: JsonNode, name: string): JsonNode | undefined {
  return node.type === 'object' ? node.members.find(([key]) => key === name)?.[1] : undefined;
}

/**
 * A verify request's report: `{document, keys?}` is unwrapped (no format has a top-level
 * `document`), anything else is the document itself. The body is parsed once; the document is
 * verified from that tree, so its bytes, member order and number spellings are the ones sent.
 *
 * @throws HttpError 400 when `keys` is not a key file, or defines a key_id of the trust store or
 *   of the service's keys as another key
 */
export function verifyRequest(bytes: Uint8Array, context: ServiceContext): Report {
  let tree: JsonNode;
  try {
    tree = parseJsonBytes(bytes);
  } catch {
    // Not strict JSON: the verifier reports MALFORMED with the parser's code and offset.
    return verifyReport(bytes, serviceVerifyContext(context));
  }
  const document = member(tree, 'document');
  if (document === undefined || tree.type !== 'object' || tree.members.some(([name]) => name !== 'document' && name !== 'keys')) {
    return verifyParsed(tree, serviceVerifyContext(context));
  }
  const keysNode = member(tree, 'keys');
  let keys: KeyEntry[] = [];
  if (keysNode !== undefined) {
    try {
      keys = parseKeyFileTree(keysNode, { advertised: true });
    } catch (error) {
      if (error instanceof KeyFileError) throw new HttpError(400, 'invalid_request', `keys: ${error.message}`, { details: [{ path: `/keys${error.path}`, message: error.message }] });
      throw error;
    }
  }
  // One context per request: its pinned keys are the trust store's alone (no extras are pinned).
  const verifyContext = serviceVerifyContext(context, keys);
  checkSentKeys(context, keys, verifyContext.pinned);
  return verifyParsed(document, verifyContext);
}

/** Registers the verify route and its alias. */
export function registerVerifyRoutes(app: FastifyInstance, context: ServiceContext): void {
  const handler = async (request: FastifyRequest) => verifyRequest(bodyBytes(request), context);
  const schema = { summary: 'Verify any supported document, or {document, keys?}; 200 with the report', tags: ['verify'], body: {} };
  app.post('/v1/receipt/verify', { schema }, handler);
  app.post('/v1/receipts/verify', { schema: { ...schema, summary: 'Alias of /v1/receipt/verify' } }, handler);
}
