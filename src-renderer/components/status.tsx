/**
 * Status and trust badges: an icon and a word, never colour alone, and never merged.
 */
import type { ReactNode } from 'react';
import type { CheckStatus, ReportStatus, TrustStatus } from '../../src-shared/verify/report';
import { ShieldIcon } from './icons';

const STATUS: Record<ReportStatus, { icon: string; tone: string; meaning: string }> = {
  PASS: { icon: '✓', tone: 'good', meaning: 'every check that ran passed' },
  INDETERMINATE: { icon: '?', tone: 'warn', meaning: 'a needed key or input is unavailable' },
  INVALID: { icon: '✗', tone: 'bad', meaning: 'a signature does not verify' },
  MISMATCH: { icon: '≠', tone: 'bad', meaning: 'the document disagrees with itself (altered after signing?)' },
  AUTH_FAILED: { icon: '⚿', tone: 'bad', meaning: 'could not decrypt with the key given' },
  UNSUPPORTED: { icon: '⊘', tone: 'other', meaning: 'uses an algorithm or mode we do not execute' },
  MALFORMED: { icon: '⚠', tone: 'bad', meaning: 'not a well-formed document of a known format' },
};

const TRUST: Record<TrustStatus, { icon: ReactNode; tone: string; label: string; meaning: string }> = {
  trusted: {
    icon: <ShieldIcon />,
    tone: 'good',
    label: 'trusted',
    meaning: 'signed by a key you pinned, inside its validity window',
  },
  unpinned: {
    icon: '○',
    tone: 'neutral',
    label: 'unpinned',
    meaning: 'valid key, issuer unknown: not in your trust store',
  },
  revoked: { icon: '⊘', tone: 'bad', label: 'revoked', meaning: 'the pinned key was revoked' },
  expired: { icon: '⌛', tone: 'warn', label: 'expired', meaning: 'outside the pinned key’s validity window' },
  unattributed: {
    icon: '⚠',
    tone: 'bad',
    label: 'unattributed',
    meaning: 'the document names a key, but that key did not sign what is here',
  },
  not_applicable: { icon: '–', tone: 'neutral', label: 'not applicable', meaning: 'nothing was signed' },
};

const CHECK: Record<CheckStatus, { icon: string; tone: string }> = {
  pass: { icon: '✓', tone: 'good' },
  fail: { icon: '✗', tone: 'bad' },
  unavailable: { icon: '?', tone: 'warn' },
  unchecked: { icon: '–', tone: 'warn' },
  unsupported: { icon: '⊘', tone: 'other' },
};

/** The meaning of a report status in a short phrase. */
export function statusMeaning(status: ReportStatus): string {
  return STATUS[status].meaning;
}

/** The meaning of a trust status in a short phrase. */
export function trustMeaning(trust: TrustStatus): string {
  return TRUST[trust].meaning;
}

export function StatusBadge({ status, large = false }: { status: ReportStatus; large?: boolean }) {
  const style = STATUS[status];
  return (
    <span
      className={`badge badge-${style.tone}${large ? ' badge-large' : ''}`}
      title={style.meaning}
      data-status={status}
    >
      <span aria-hidden="true" className="badge-icon">
        {style.icon}
      </span>
      {status}
    </span>
  );
}

export function TrustBadge({ trust, large = false }: { trust: TrustStatus; large?: boolean }) {
  const style = TRUST[trust];
  return (
    <span
      className={`badge badge-outline badge-${style.tone}${large ? ' badge-large' : ''}`}
      title={style.meaning}
      data-trust={trust}
    >
      <span aria-hidden="true" className="badge-icon">
        {style.icon}
      </span>
      {style.label}
    </span>
  );
}

export function CheckBadge({ status }: { status: CheckStatus }) {
  const style = CHECK[status];
  return (
    <span className={`check check-${style.tone}`} data-check-status={status}>
      <span aria-hidden="true" className="badge-icon">
        {style.icon}
      </span>
      {status}
    </span>
  );
}
