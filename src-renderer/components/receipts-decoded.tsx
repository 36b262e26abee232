/**
 * A receipt's document for people: its top-level fields as a key–value view, a wearable
 * receipt's derived relations with what each one means, and the whole document formatted or
 * exactly as received.
 *
 * Everything is read with the project's strict parser, which keeps numbers as written (`12.50`
 * stays `12.50`, where `JSON.parse` would show `12.5`), so what an auditor reads here is what
 * was signed.
 */
import { useMemo, useState, type ReactNode } from 'react';
import { JsonParseError, formatJsonError, parseJsonTree } from '../../src-shared/json';
import type { JsonNode, JsonObjectNode } from '../../src-shared/json/types';
import { formatInstant } from './ui';
import { CopyButton, truncateMiddle } from './receipts-shared';

/** Strings longer than this are shortened in the field view (the document view shows them whole). */
const LONG_STRING = 160;
/** Objects with at most this many members start open. */
const OPEN_MEMBERS = 10;

/**
 * A wearable receipt's derived fields (PROTOCOL section 2) and what each says. The verifier
 * recomputes every one from the receipt's own fields; a disagreement is MISMATCH.
 */
export const WEARABLE_RELATIONS: readonly { name: string; meaning: string }[] = [
  {
    name: 'metric_unit_relation',
    meaning:
      'Whether the unit is one the registry lists for the metric: matched; mismatch (known metric, other unit); indeterminate (unknown metric).',
  },
  {
    name: 'signature_relation',
    meaning:
      'Whether the device’s Ed25519 signature verifies over the canonical observation message M under device_public_key: valid or invalid.',
  },
  {
    name: 'clock_lag_ms',
    meaning:
      'gateway_received_at minus observed_at, in whole milliseconds (may be negative); below −2,000 or above 300,000 the clock is unresolved.',
  },
  {
    name: 'sequence_relation',
    meaning:
      'How sequence_no follows prior_sequence_no: initial (0, no prior), contiguous (prior + 1), gap (skips numbers), out_of_order (not after the prior), indeterminate (no prior and not 0).',
  },
  {
    name: 'calibration_relation',
    meaning:
      'The calibration reference’s standing: resolved (trusted), untrusted, indeterminate (unknown), or not_applicable (no calibration_ref).',
  },
  {
    name: 'assignment_relation',
    meaning: 'The subject assignment’s standing: resolved (trusted), untrusted, or indeterminate (unknown).',
  },
  {
    name: 'elements',
    meaning:
      'What is unresolved, in this order: signature_invalid, sequence_gap, clock_unresolved, calibration_unresolved, assignment_unresolved. Empty when nothing is.',
  },
  {
    name: 'outcome',
    meaning:
      'The overall reading: inconsistent (bad device signature, unit mismatch or out-of-order sequence); complete (nothing unresolved, unit matched, sequence initial or contiguous); otherwise partial.',
  },
];

/** The result of reading a document strictly. */
export type ParsedDocument = { ok: true; tree: JsonNode } | { ok: false; problem: string };

/**
 * Parses a document with the strict parser.
 *
 * @param raw - The document's text.
 * @returns the lossless tree, or why it is not strict JSON
 */
export function parseDocument(raw: string): ParsedDocument {
  try {
    return { ok: true, tree: parseJsonTree(raw) };
  } catch (error) {
    return { ok: false, problem: error instanceof JsonParseError ? formatJsonError(error) : String(error) };
  }
}

function quote(text: string): string {
  return JSON.stringify(text);
}

/**
 * Writes a tree as indented JSON, numbers as they were spelled and members in input order.
 *
 * @param node - The tree.
 * @param indent - Current indentation (for recursion).
 * @returns the formatted text
 */
export function formatTree(node: JsonNode, indent = ''): string {
  const inner = `${indent}  `;
  switch (node.type) {
    case 'null':
      return 'null';
    case 'boolean':
      return String(node.value);
    case 'number':
      return node.lexeme;
    case 'string':
      return quote(node.value);
    case 'array':
      if (node.items.length === 0) return '[]';
      return `[\n${node.items.map((item) => `${inner}${formatTree(item, inner)}`).join(',\n')}\n${indent}]`;
    case 'object':
      if (node.members.length === 0) return '{}';
      return `{\n${node.members.map(([name, value]) => `${inner}${quote(name)}: ${formatTree(value, inner)}`).join(',\n')}\n${indent}}`;
  }
}

/** One line of JSON for a small value. */
function compactTree(node: JsonNode): string {
  switch (node.type) {
    case 'array':
      return `[${node.items.map(compactTree).join(', ')}]`;
    case 'object':
      return `{${node.members.map(([name, value]) => `${quote(name)}: ${compactTree(value)}`).join(', ')}}`;
    default:
      return formatTree(node);
  }
}

function member(node: JsonNode | undefined, name: string): JsonNode | undefined {
  return node?.type === 'object' ? node.members.find(([key]) => key === name)?.[1] : undefined;
}

/** Unix seconds fields the formats use (`ts`, nano's `i`), shown with their instant. */
function secondsHint(name: string, node: JsonNode): string | undefined {
  if ((name !== 'ts' && name !== 'i') || node.type !== 'number') return undefined;
  const seconds = node.value;
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 1e11) return undefined;
  return formatInstant(seconds * 1000);
}

function Scalar({ node }: { node: JsonNode }) {
  switch (node.type) {
    case 'null':
      return <code className="code decoded-literal">null</code>;
    case 'boolean':
      return <code className="code decoded-literal">{String(node.value)}</code>;
    case 'number':
      return <code className="code">{node.lexeme}</code>;
    case 'string':
      if (node.value === '') return <span className="muted">(empty string)</span>;
      if (node.value.length > LONG_STRING)
        return (
          <span>
            <code className="code" title={node.value}>
              {truncateMiddle(node.value, 96)}
            </code>{' '}
            <span className="muted">({node.value.length.toLocaleString('en-US')} characters)</span>
          </span>
        );
      return <code className="code">{node.value}</code>;
    default:
      return <code className="code">{compactTree(node)}</code>;
  }
}

function Value({ name, node, depth }: { name: string; node: JsonNode; depth: number }): ReactNode {
  if (node.type === 'object') {
    if (node.members.length === 0) return <code className="code">{'{}'}</code>;
    if (depth >= 2) return <code className="code">{compactTree(node)}</code>;
    return (
      <details className="decoded-nested" open={node.members.length <= OPEN_MEMBERS}>
        <summary>
          object, {node.members.length} {node.members.length === 1 ? 'field' : 'fields'}
        </summary>
        <MemberList node={node} depth={depth + 1} />
      </details>
    );
  }
  if (node.type === 'array') {
    if (node.items.length === 0)
      return (
        <>
          <code className="code">[]</code> <span className="muted decoded-hint">(empty list)</span>
        </>
      );
    const scalars = node.items.every((item) => item.type !== 'object' && item.type !== 'array');
    if (scalars && compactTree(node).length <= LONG_STRING) return <code className="code">{compactTree(node)}</code>;
    return (
      <details className="decoded-nested">
        <summary>
          list of {node.items.length} {node.items.length === 1 ? 'item' : 'items'}
        </summary>
        <pre className="code-block decoded-json">{formatTree(node)}</pre>
      </details>
    );
  }
  const hint = secondsHint(name, node);
  return (
    <>
      <Scalar node={node} />
      {hint && <span className="muted decoded-hint"> = {hint}</span>}
    </>
  );
}

function MemberList({ node, depth, skip = [] }: { node: JsonObjectNode; depth: number; skip?: readonly string[] }) {
  return (
    <dl className="fields decoded-fields">
      {node.members
        .filter(([name]) => !skip.includes(name))
        .map(([name, value]) => (
          <div className="field-row" key={name} data-field={name}>
            <dt>
              <code className="code decoded-name">{name}</code>
            </dt>
            <dd>
              <Value name={name} node={value} depth={depth} />
            </dd>
          </div>
        ))}
    </dl>
  );
}

/**
 * The decoded view of a document.
 *
 * @param parsed - The document read strictly.
 * @param format - The report's format; `wearable/…` adds the relations section.
 */
export function DecodedFields({ parsed, format }: { parsed: ParsedDocument; format: string }) {
  if (!parsed.ok) {
    return (
      <div className="notice notice-warn">
        <p className="notice-title">Not strict JSON, so there are no fields to show</p>
        <p>{parsed.problem}</p>
        <p className="notice-hint">The exact text is under “Document” below.</p>
      </div>
    );
  }
  const { tree } = parsed;
  if (tree.type !== 'object') {
    return (
      <p className="muted">
        The document is a JSON {tree.type}, not an object:{' '}
        <code className="code">{truncateMiddle(compactTree(tree), 120)}</code>
      </p>
    );
  }
  const signedBody = format.startsWith('wearable/') ? member(tree, 'signed_body') : undefined;
  if (signedBody?.type === 'object') {
    const relations = WEARABLE_RELATIONS.filter((relation) => member(signedBody, relation.name) !== undefined);
    return (
      <div className="decoded">
        <MemberList node={tree} depth={1} skip={['signed_body']} />
        <h3 className="decoded-heading">Derived relations in signed_body</h3>
        <p className="muted decoded-intro">
          The verifier recomputes each of these from the receipt’s own fields; any disagreement makes the receipt
          MISMATCH.
        </p>
        <dl className="decoded-relations" data-testid="wearable-relations">
          {relations.map((relation) => (
            <div className="decoded-relation" key={relation.name} data-relation={relation.name}>
              <dt>
                <code className="code decoded-name">{relation.name}</code>
              </dt>
              <dd>
                <span className="decoded-relation-value">
                  <Value name={relation.name} node={member(signedBody, relation.name) as JsonNode} depth={2} />
                </span>
                <span className="decoded-relation-meaning">{relation.meaning}</span>
              </dd>
            </div>
          ))}
        </dl>
        <details className="decoded-nested decoded-other">
          <summary>Other signed_body fields ({signedBody.members.length - relations.length})</summary>
          <MemberList node={signedBody} depth={2} skip={WEARABLE_RELATIONS.map((relation) => relation.name)} />
        </details>
      </div>
    );
  }
  return (
    <div className="decoded">
      <MemberList node={tree} depth={1} />
    </div>
  );
}

/**
 * The whole document: formatted for reading, or the exact text as received.
 *
 * @param raw - The document exactly as received.
 * @param parsed - The same, read strictly.
 */
export function DocumentText({ raw, parsed }: { raw: string; parsed: ParsedDocument }) {
  const formatted = useMemo(() => (parsed.ok ? formatTree(parsed.tree) : undefined), [parsed]);
  const [exact, setExact] = useState(formatted === undefined);
  const shown = exact || formatted === undefined ? raw : formatted;
  return (
    <div className="document-text">
      <div className="document-toolbar">
        <div className="segmented" role="group" aria-label="How to show the document">
          <button
            type="button"
            className="segmented-option"
            aria-pressed={!exact}
            disabled={formatted === undefined}
            onClick={() => setExact(false)}
          >
            Formatted
          </button>
          <button
            type="button"
            className="segmented-option"
            aria-pressed={exact}
            onClick={() => setExact(true)}
            data-testid="raw-toggle"
          >
            Exact raw text
          </button>
        </div>
        <span className="muted document-note">
          {exact || formatted === undefined
            ? `The bytes as received: ${new TextEncoder().encode(raw).length.toLocaleString('en-US')} bytes of UTF-8.`
            : 'Re-indented for reading; names and numbers as written. Switch to the exact text for the bytes as received.'}
        </span>
        <CopyButton text={shown} what={exact ? 'the exact document text' : 'the formatted document'} />
      </div>
      <pre className="code-block document-code" data-testid={exact ? 'document-raw' : 'document-formatted'}>
        {shown}
      </pre>
    </div>
  );
}
