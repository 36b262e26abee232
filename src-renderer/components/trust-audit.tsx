/**
 * The audit log of trust decisions: every pin, revoke, unpin, label and validity change, and
 * trust-store imports and exports, newest first.
 */
import type { ReactNode } from 'react';
import type { AuditEntry } from '../../src-shared/api/contract';
import { Code, EmptyState, formatInstant } from './ui';
import { CopyableValue } from './copyable-value';

const ACTION_WORDS: Record<string, { icon: string; words: string }> = {
  pin: { icon: '✓', words: 'pinned' },
  revoke: { icon: '⊘', words: 'revoked' },
  unpin: { icon: '○', words: 'unpinned (removed)' },
  label: { icon: '✎', words: 'label changed' },
  validity: { icon: '⌛', words: 'validity changed' },
  'trust-import': { icon: '⇣', words: 'key file imported' },
  'trust-export': { icon: '⇡', words: 'trust store exported' },
};

/** An audit action in words. */
export function auditActionWords(action: string): string {
  return ACTION_WORDS[action]?.words ?? action;
}

/** Detail members too long or too technical to show in full; shown shortened. */
const SHORTENED = new Set(['public_key', 'public_key_sha256']);
/** Detail members shown first, in this order. */
const ORDER = [
  'label',
  'algorithm',
  'reason',
  'not_before',
  'not_after',
  'status',
  'source',
  'via',
  'from',
  'to',
  'public_key_sha256',
  'public_key',
];

function valueText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'object' && !Array.isArray(value)) {
    return Object.entries(value as Record<string, unknown>)
      .map(([name, member]) => `${name.replace(/_/g, ' ')} ${valueText(member)}`)
      .join(', ');
  }
  return JSON.stringify(value);
}

/** An audit row's details as a short list of name: value pairs. */
function Details({ details }: { details: unknown }): ReactNode {
  if (typeof details !== 'object' || details === null || Array.isArray(details)) {
    return details === null || details === undefined ? (
      <span className="muted">—</span>
    ) : (
      <Code>{JSON.stringify(details)}</Code>
    );
  }
  const entries = Object.entries(details as Record<string, unknown>)
    .filter(
      ([name, value]) =>
        value !== null && value !== undefined && !(name === 'public_key' && 'public_key_sha256' in (details as object)),
    )
    .sort(
      ([a], [b]) =>
        (ORDER.indexOf(a) === -1 ? 99 : ORDER.indexOf(a)) - (ORDER.indexOf(b) === -1 ? 99 : ORDER.indexOf(b)),
    );
  if (entries.length === 0) return <span className="muted">—</span>;
  return (
    <dl className="audit-details">
      {entries.map(([name, value]) => {
        const text = valueText(value);
        return (
          <div key={name}>
            <dt>{name === 'public_key_sha256' ? 'key SHA-256' : name.replace(/_/g, ' ')}</dt>
            <dd>
              {SHORTENED.has(name) && text.length > 20 ? (
                <CopyableValue
                  value={text}
                  short={`${text.slice(0, 16)}…`}
                  what={name === 'public_key_sha256' ? 'the key SHA-256' : `the ${name.replace(/_/g, ' ')}`}
                />
              ) : (
                text
              )}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

/** The audit log table. */
export function AuditTable({ entries }: { entries: readonly AuditEntry[] }) {
  if (entries.length === 0) {
    return (
      <EmptyState title="No trust decisions yet">
        Every pin, revoke and unpin is recorded here with its time and the exact key, so you can show later what was
        trusted when.
      </EmptyState>
    );
  }
  return (
    <div className="table-scroll">
      <table className="table audit-table" data-testid="audit-table">
        <thead>
          <tr>
            <th scope="col">When (UTC)</th>
            <th scope="col">Action</th>
            <th scope="col">Key</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id} data-audit-action={entry.action}>
              <td className="nowrap">{formatInstant(entry.at)}</td>
              <td className="nowrap">
                <span aria-hidden="true" className="audit-icon">
                  {ACTION_WORDS[entry.action]?.icon ?? '•'}
                </span>{' '}
                {auditActionWords(entry.action)}
              </td>
              <td className="key-cell">
                <CopyableValue value={entry.subject} what="the id of this key" />
              </td>
              <td>
                <Details details={entry.details} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
