/**
 * A bundle's log completeness and a log's standing as the views show them (issue 28,
 * docs/logs.md): the completeness line of a bundle (Bundles list and detail, the Logs view),
 * the consistency and log-key badges, and the split-view alert. The words and numbers arrive
 * typed from the app API (`LogCompleteness`, `LogView`); here they get an icon and a tone,
 * never colour alone.
 */
import type { ReactNode } from 'react';
import type {
  LogCompleteness,
  LogCompletenessStatus,
  LogConsistency,
  LogSigner,
  LogView,
} from '../../src-shared/api/contract';
import { hrefFor } from '../router';
import { ShieldIcon } from './icons';
import { Code, Fields, formatCount } from './ui';
import './log-completeness.css';

interface Style {
  icon: ReactNode;
  tone: string;
  label: string;
  meaning: string;
}

const COMPLETENESS: Record<LogCompletenessStatus, Style> = {
  complete: {
    icon: '✓',
    tone: 'good',
    label: 'complete',
    meaning: 'every receipt of the period is in the bundle: the log’s leaves are contiguous up to its edges',
  },
  incomplete: {
    icon: '✗',
    tone: 'bad',
    label: 'incomplete',
    meaning: 'leaves of the log inside the bundle’s period are not in the bundle',
  },
  invalid: {
    icon: '⚠',
    tone: 'bad',
    label: 'log evidence invalid',
    meaning: 'the checkpoint or the proofs do not verify, so completeness cannot be shown',
  },
  absent: {
    icon: '–',
    tone: 'neutral',
    label: 'no log evidence',
    meaning: 'the bundle carries no log files: it cannot show that nothing was left out',
  },
};

const CONSISTENCY: Record<LogConsistency, Style> = {
  consistent: {
    icon: '✓',
    tone: 'good',
    label: 'consistent',
    meaning: 'every checkpoint seen of this log is consistent with the others: one append-only history',
  },
  unchecked: {
    icon: '?',
    tone: 'warn',
    label: 'not all checked',
    meaning:
      'some checkpoints could not be checked against each other (no consistency proof yet); `evroom log check` fetches one',
  },
  split_view: {
    icon: '⚠',
    tone: 'bad',
    label: 'split view',
    meaning: 'two checkpoints of this log disagree: the log showed different histories, or was rewritten',
  },
};

const SIGNER: Record<LogSigner, Style> = {
  pinned: {
    icon: <ShieldIcon />,
    tone: 'good',
    label: 'log key pinned',
    meaning: 'the checkpoint is signed by a log key pinned in your trust store',
  },
  advertised: {
    icon: '○',
    tone: 'neutral',
    label: 'log key not pinned',
    meaning: 'the checkpoint is signed by the log key the bundle advertises; you have not pinned it',
  },
  unknown: {
    icon: '?',
    tone: 'warn',
    label: 'log key unknown',
    meaning: 'no known key signed the checkpoint, so it proves nothing',
  },
};

function StyledBadge({ style, data }: { style: Style; data: Record<string, string> }) {
  return (
    <span className={`badge badge-${style.tone}`} title={style.meaning} {...data}>
      <span aria-hidden="true" className="badge-icon">
        {style.icon}
      </span>
      {style.label}
    </span>
  );
}

/** How a completeness looks: a split view outranks the status, since it undoes what the checkpoint proves. */
export function completenessStyle(log: LogCompleteness): Style {
  if (log.consistency === 'split_view') return CONSISTENCY.split_view;
  return COMPLETENESS[log.status];
}

/** A bundle's completeness as a badge: icon and a word; the sentence is beside it or on hover. */
export function LogCompletenessBadge({ log }: { log: LogCompleteness | null }) {
  if (log === null)
    return (
      <span className="muted" data-log-status="none" title={COMPLETENESS.absent.meaning}>
        no log evidence
      </span>
    );
  return (
    <StyledBadge
      style={completenessStyle(log)}
      data={{ 'data-log-status': log.consistency === 'split_view' ? 'split_view' : log.status }}
    />
  );
}

/**
 * A bundle's completeness line: the badge and the sentence the check gave (`complete for … at
 * size N`, or what is missing or wrong).
 */
export function LogCompletenessLine({ log }: { log: LogCompleteness | null }) {
  return (
    <span className="log-line" data-testid="log-completeness">
      <LogCompletenessBadge log={log} />
      {log !== null && <span className="log-sentence">{log.sentence}</span>}
    </span>
  );
}

/** A log's consistency as a badge. */
export function ConsistencyBadge({ consistency }: { consistency: LogConsistency }) {
  return <StyledBadge style={CONSISTENCY[consistency]} data={{ 'data-consistency': consistency }} />;
}

/** How the log key that signed a checkpoint is known, as a badge. */
export function LogSignerBadge({ signer }: { signer: LogSigner }) {
  return <StyledBadge style={SIGNER[signer]} data={{ 'data-log-signer': signer }} />;
}

/** The meaning of a consistency in a short phrase. */
export function consistencyMeaning(consistency: LogConsistency): string {
  return CONSISTENCY[consistency].meaning;
}

/** The meaning of a log signer in a short phrase. */
export function signerMeaning(signer: LogSigner): string {
  return SIGNER[signer].meaning;
}

/** A hash shortened for a table cell (the whole of it in the title and for screen readers). */
export function ShortHash({ hex }: { hex: string }) {
  if (hex.length <= 20) return <Code>{hex}</Code>;
  return (
    <code className="code" title={hex}>
      <span aria-hidden="true">
        {hex.slice(0, 12)}…{hex.slice(-4)}
      </span>
      <span className="visually-hidden">{hex}</span>
    </code>
  );
}

/** The period a completeness covers, in words. */
export function periodWords(period: LogCompleteness['period']): string {
  if (period.since === null && period.until === null) return 'the whole log';
  return `${period.since ?? 'the start'} to ${period.until ?? 'the checkpoint'}${period.until === null ? '' : ' (exclusive)'}`;
}

/** Missing leaf indices in words: `2 (indices 5, 6)`, the first few named and the rest counted. */
export function missingWords(log: LogCompleteness, named = 20): string {
  if (log.missing_count === 0) return 'none';
  const shown = log.missing.slice(0, named);
  const more = log.missing_count - shown.length;
  const list = `${shown.join(', ')}${more > 0 ? ` and ${formatCount(more)} more` : ''}`;
  if (shown.length === 0) return formatCount(log.missing_count);
  return `${formatCount(log.missing_count)} (${log.missing_count === 1 ? 'index' : 'indices'} ${list})`;
}

/** A bundle's completeness in full: the line, then what it rests on (the bundle detail and the Logs view). */
export function LogCompletenessFields({ log }: { log: LogCompleteness }) {
  return (
    <Fields
      rows={[
        ['Completeness', <LogCompletenessLine key="line" log={log} />],
        [
          'Log',
          log.origin === undefined ? (
            <span className="muted">no checkpoint read</span>
          ) : (
            <a href={hrefFor(['logs', log.origin])} data-testid="log-origin-link">
              <Code>{log.origin}</Code>
            </a>
          ),
        ],
        ['Period', periodWords(log.period)],
        [
          'Leaves in the bundle',
          log.first_index === null || log.last_index === null
            ? 'none: the period holds no receipt'
            : `indices ${formatCount(log.first_index)} to ${formatCount(log.last_index)}`,
        ],
        ['Missing leaves', missingWords(log)],
        [
          'Checkpoint',
          log.tree_size === undefined ? (
            <span className="muted">not read</span>
          ) : (
            <span>
              size {formatCount(log.tree_size)}
              {log.root_hex !== undefined && (
                <>
                  , root <ShortHash hex={log.root_hex} />
                </>
              )}
              {log.stale && <span className="log-stale"> · stale: it does not cover every receipt in the bundle</span>}
            </span>
          ),
        ],
        [
          'Log key',
          <span key="signer">
            <LogSignerBadge signer={log.signer} />
            {log.key_name !== undefined && (
              <>
                {' '}
                <Code>{log.key_name}</Code>
              </>
            )}
          </span>,
        ],
        [
          'Consistency',
          log.consistency === undefined ? (
            <span className="muted">not recorded</span>
          ) : (
            <span>
              <ConsistencyBadge consistency={log.consistency} />{' '}
              <span className="muted">{consistencyMeaning(log.consistency)}</span>
            </span>
          ),
        ],
      ]}
    />
  );
}

/**
 * The split-view alert: the loudest finding the app has. Two checkpoints of one log that
 * disagree mean the service showed different histories to different viewers, or rewrote its log.
 */
export function SplitViewAlert({ logs, linked = true }: { logs: readonly LogView[]; linked?: boolean }) {
  const split = logs.filter((log) => log.consistency === 'split_view');
  if (split.length === 0) return null;
  return (
    <div className="notice notice-error split-view-alert" role="alert" data-testid="split-view-alert">
      <p className="notice-title">
        <span aria-hidden="true">⚠ </span>
        Split view: {split.length === 1 ? 'a log shows' : `${formatCount(split.length)} logs show`} two histories that
        cannot both be true
      </p>
      <ul className="split-view-list">
        {split.map((log) => (
          <li key={log.origin} data-split-origin={log.origin}>
            {linked ? (
              <a href={hrefFor(['logs', log.origin])}>
                <Code>{log.origin}</Code>
              </a>
            ) : (
              <Code>{log.origin}</Code>
            )}
            {log.split ? (
              <>
                : its checkpoint at size {formatCount(log.split.size)} (root <ShortHash hex={log.split.root_hex} />) and
                the one at size {formatCount(log.split.other_size)} (root <ShortHash hex={log.split.other_root_hex} />)
                are not of one append-only log.
              </>
            ) : (
              ': two of its checkpoints are not of one append-only log.'
            )}
          </li>
        ))}
      </ul>
      <p>
        The service showed different logs to different viewers, or rewrote its log: receipts can have been hidden from
        one of them. Keep both checkpoints (they are signed evidence of it) and tell the service’s other tenants and
        witnesses.
      </p>
    </div>
  );
}
