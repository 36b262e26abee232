/**
 * Countersigning a record from caller fields (`evroom sign countersigner`).
 *
 * The fields are the body of the countersigner's `POST /countersign` plus the log so far:
 * `{record, operator_signature, operator_signature_scheme?, log_leaves?}`. The document is the
 * countersign answer; `log_leaves` (the leaves of the log's earlier entries, in order) give the
 * entry's seq and prev_leaf and its `log_root_after` (none: seq 1, the genesis leaf, and a root
 * that is the leaf itself). The countersigner's time is the issuing instant, in Unix seconds.
 */
import { timestampToMillis } from '../../verify/timestamp';
import { memberNode } from '../../verify/fields';
import type { FormatIssuer, IssueInput, IssuedDocument } from '../../verify/format-module';
import { checkMembers, fieldsObject, issuerKey, publicEntry } from '../../verify/issue-fields';
import { IssueInputError } from '../../verify/issue-error';
import { formatJsonDocument } from '../../verify/json-document';
import { countersign } from './sign';

const REQUIRED = ['record', 'operator_signature'];
const OPTIONAL = ['operator_signature_scheme', 'log_leaves'];

/**
 * Countersign a caller's record as the next entry of its log.
 *
 * @param input - The fields and the countersigner's key.
 * @returns The countersign answer and the key that verifies it.
 * @throws IssueInputError for fields of the wrong shape.
 */
export function issueCountersigner(input: IssueInput): IssuedDocument {
  const { key, keyId } = issuerKey(input);
  const fields = fieldsObject(input);
  checkMembers(fields, REQUIRED, OPTIONAL, input.name);
  const tree = input.fields.tree;
  const record = tree.type === 'object' ? memberNode(tree, 'record') : undefined;
  if (record?.type !== 'object') {
    throw new IssueInputError('invalid_record', '/record', 'the record must be a JSON object');
  }
  const signature = fields['operator_signature'];
  if (typeof signature !== 'string' || signature.length === 0) {
    throw new IssueInputError(
      'invalid_operator_signature',
      '/operator_signature',
      'operator_signature must be the operator signature as a non-empty string',
    );
  }
  const scheme = fields['operator_signature_scheme'];
  if (scheme !== undefined && typeof scheme !== 'string') {
    throw new IssueInputError(
      'invalid_operator_signature_scheme',
      '/operator_signature_scheme',
      'operator_signature_scheme must be a string',
    );
  }
  const leaves = fields['log_leaves'] ?? [];
  if (!Array.isArray(leaves)) {
    throw new IssueInputError('invalid_log_leaves', '/log_leaves', 'log_leaves must be an array of leaf hashes');
  }
  const previous = leaves.map((leaf, index) => {
    if (typeof leaf !== 'string' || !/^[0-9a-f]{64}$/.test(leaf)) {
      throw new IssueInputError(
        'invalid_log_leaves',
        `/log_leaves/${index}`,
        'each log leaf must be 64 lowercase hex characters',
      );
    }
    return leaf;
  });
  const millis = input.issuedAt === undefined ? input.now.getTime() : timestampToMillis(input.issuedAt);
  const entry = countersign(
    {
      record,
      operator_signature: signature,
      ...(scheme === undefined ? {} : { operator_signature_scheme: scheme }),
    },
    key.seed,
    input.crypto,
    { time: millis / 1000, previousLeaves: previous },
  );
  return { text: formatJsonDocument(entry.answer), keys: [publicEntry(key, keyId)], secrets: [] };
}

/** `evroom sign countersigner`. */
export const countersignerIssuer: FormatIssuer = {
  name: 'countersigner',
  help: [
    '{record, operator_signature, operator_signature_scheme?, log_leaves?}; writes the',
    "countersign answer; log_leaves (the log's earlier leaves) give seq and prev_leaf",
    '(none: entry 1 after the genesis leaf)',
  ],
  keyAlgorithm: 'Ed25519',
  keyId: false,
  roles: [],
  secret: false,
  issuedAt: true,
  exactNumbers: false,
  wraps: false,
  issue: issueCountersigner,
};
