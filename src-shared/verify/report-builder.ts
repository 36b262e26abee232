/**
 * Report assembly with the status precedence of PROTOCOL section 1 in one place.
 *
 * A verifier states facts ("the digest disagrees", "no key was found") and the builder turns them
 * into checks, errors and one status. Verifiers never pick the final status themselves, so the
 * precedence MALFORMED > UNSUPPORTED > AUTH_FAILED > MISMATCH > INVALID > INDETERMINATE > PASS
 * cannot drift between formats.
 */
import {
  REPORT_VERSION,
  STATUS_PRECEDENCE,
  type Check,
  type CheckStatus,
  type Report,
  type ReportError,
  type ReportFormat,
  type ReportStatus,
  type TrustResult,
  UNATTRIBUTED_STATUSES,
} from './report';
import type { SignatureOutcome } from './keys';

/** The statuses a failing (`fail`) check can raise. */
export type FailureStatus = 'MALFORMED' | 'AUTH_FAILED' | 'MISMATCH' | 'INVALID';

/** One or several report errors attached to a check. */
export type ErrorInput = ReportError | readonly ReportError[];

/** Check statuses, worst first: when one check is recorded twice the worse outcome stays. */
const CHECK_SEVERITY: readonly CheckStatus[] = ['fail', 'unsupported', 'unavailable', 'unchecked', 'pass'];

/** The trust a report carries until a verifier sets one: nothing was judged. */
const DEFAULT_TRUST: TrustResult = {
  status: 'not_applicable',
  detail: 'No signing key was evaluated.',
};

/**
 * Pick the stronger of two statuses by PROTOCOL section 1 precedence.
 *
 * @param first - A report status.
 * @param second - Another report status.
 * @returns Whichever comes first in {@link STATUS_PRECEDENCE}.
 * @example strongerStatus('INVALID', 'MISMATCH') // 'MISMATCH'
 */
export function strongerStatus(first: ReportStatus, second: ReportStatus): ReportStatus {
  return STATUS_PRECEDENCE.indexOf(first) <= STATUS_PRECEDENCE.indexOf(second) ? first : second;
}

/**
 * The check status that describes a report status, for a check that summarizes a sub-report.
 *
 * @param status - A report status.
 * @returns `pass` for PASS, `unavailable` for INDETERMINATE, `unsupported` for UNSUPPORTED and
 *   `fail` otherwise.
 */
export function checkStatusOf(status: ReportStatus): CheckStatus {
  if (status === 'PASS') return 'pass';
  if (status === 'INDETERMINATE') return 'unavailable';
  if (status === 'UNSUPPORTED') return 'unsupported';
  return 'fail';
}

/**
 * Collects checks, errors, notes and trust, and computes the report status.
 *
 * Construct it with the ids of every check the format performs (`planned`): any planned check a
 * verifier never reached (because an earlier problem stopped it) is listed as `unchecked` by
 * {@link ReportBuilder.build}, so nothing is ever silently omitted. Checks appear in planned
 * order, then any unplanned ones in the order they were recorded.
 *
 * The status starts at PASS and each recorded fact can only make it stronger. A report whose
 * checks include no `pass` at all is never PASS: with nothing verified, `build` answers
 * INDETERMINATE (an unknown result is not a success).
 *
 * @example
 * const builder = new ReportBuilder('classical', ['schema', 'signature']);
 * builder.pass('schema', 'all fields present');
 * builder.fail('INVALID', 'signature', 'the signature does not verify');
 * builder.build().status // 'INVALID'
 */
/** Frozen lists of planned check ids already checked (see the ReportBuilder constructor). */
const CHECKED_PLANS = new WeakSet<readonly string[]>();

export class ReportBuilder {
  /** The report's format; a verifier may refine it (e.g. `typed/<contract_type>`). */
  format: ReportFormat;
  private readonly planned: readonly string[];
  private readonly checks = new Map<string, Check>();
  private readonly errors: ReportError[] = [];
  private readonly notes: string[] = [];
  private status: ReportStatus = 'PASS';
  private trust: TrustResult = DEFAULT_TRUST;
  private inner: Report | undefined;
  /** Details of passing signature checks, written again at build time ({@link passSigned}). */
  private readonly signedDetails = new Map<string, (outcome: SignatureOutcome) => string>();

  /**
   * @param format - The format the report is about.
   * @param planned - Ids of every check this format performs, in the order to list them.
   * @throws TypeError if `format` is not a string or `planned` holds a non-string.
   */
  constructor(format: ReportFormat, planned: readonly string[] = []) {
    if (typeof format !== 'string') throw new TypeError('ReportBuilder needs a format string');
    if (!CHECKED_PLANS.has(planned)) {
      if (!Array.isArray(planned) || planned.some((id) => typeof id !== 'string')) {
        throw new TypeError('ReportBuilder planned check ids must be strings');
      }
      if (new Set(planned).size !== planned.length) throw new TypeError('ReportBuilder planned check ids must differ');
      // A verifier passes the same frozen list for every document: check it once.
      if (Object.isFrozen(planned)) CHECKED_PLANS.add(planned);
    }
    this.format = format;
    this.planned = Object.isFrozen(planned) ? planned : [...planned];
  }

  /**
   * Record a check that passed.
   *
   * @param id - The check id.
   * @param detail - What was verified, for people.
   */
  pass(id: string, detail?: string): this {
    return this.record(id, 'pass', detail);
  }

  /**
   * Record a passing signature check whose detail names its key (describeKey in keys.ts).
   *
   * Trust is judged only for a key that signed what is here (PROTOCOL section 1): the detail is
   * written when the report is built, with outcome `signed`, or `not_signed` when the report ends
   * MISMATCH or INVALID (the signature verifies, but over content that does not hold together),
   * so a key's trust is never written beside a document it did not sign.
   *
   * @param id - The check id.
   * @param detail - Writes the detail for an outcome.
   * @throws TypeError if `detail` is not a function.
   */
  passSigned(id: string, detail: (outcome: SignatureOutcome) => string): this {
    if (typeof detail !== 'function') throw new TypeError('passSigned expects a function that writes the detail');
    this.record(id, 'pass', detail('signed'));
    if (this.checks.get(id)?.status === 'pass') this.signedDetails.set(id, detail);
    return this;
  }

  /**
   * Record a failing check and raise the status to `status`.
   *
   * @param status - MALFORMED (parse or schema), AUTH_FAILED (sealed, wrong key), MISMATCH (an
   *   integrity binding disagrees) or INVALID (a signature fails over consistent content).
   * @param id - The check id.
   * @param detail - What disagreed, for people.
   * @param errors - Machine-readable errors with JSON Pointer paths.
   */
  fail(status: FailureStatus, id: string, detail: string, errors?: ErrorInput): this {
    if (status !== 'MALFORMED' && status !== 'AUTH_FAILED' && status !== 'MISMATCH' && status !== 'INVALID') {
      throw new RangeError(`A failing check cannot raise status ${String(status)}`);
    }
    this.raise(status);
    this.addErrors(errors);
    return this.record(id, 'fail', detail);
  }

  /**
   * Record a check that uses an algorithm, suite or mode we do not execute (status UNSUPPORTED).
   *
   * @param id - The check id.
   * @param detail - What is unsupported.
   * @param errors - Machine-readable errors.
   */
  unsupported(id: string, detail: string, errors?: ErrorInput): this {
    this.raise('UNSUPPORTED');
    this.addErrors(errors);
    return this.record(id, 'unsupported', detail);
  }

  /**
   * Record a check that could not run because a key or input is missing (status INDETERMINATE).
   *
   * @param id - The check id.
   * @param detail - What is missing.
   * @param errors - Machine-readable errors.
   */
  unavailable(id: string, detail: string, errors?: ErrorInput): this {
    this.raise('INDETERMINATE');
    this.addErrors(errors);
    return this.record(id, 'unavailable', detail);
  }

  /**
   * Record a check listed `unavailable` whose input is an optional part the document does not
   * carry (a countersigner record's record or audit path, PROTOCOL section 5); unlike
   * {@link ReportBuilder.unavailable} it does not change the status, since nothing the document
   * claims is left unverified.
   *
   * @param id - The check id.
   * @param detail - What is missing and where it would come from.
   */
  notSupplied(id: string, detail: string): this {
    return this.record(id, 'unavailable', detail);
  }

  /**
   * Record a check that was deliberately not performed; it does not change the status.
   *
   * Used for properties a format cannot show offline (e.g. a log's checkpoint freshness) and for
   * optional bindings the document does not carry.
   *
   * @param id - The check id.
   * @param detail - Why it was not checked.
   */
  unchecked(id: string, detail: string): this {
    return this.record(id, 'unchecked', detail);
  }

  /**
   * Add an error that belongs to no single check, raising the status.
   *
   * @param status - The status the error implies.
   * @param error - The error.
   */
  error(status: Exclude<ReportStatus, 'PASS'>, error: ReportError): this {
    this.raise(status);
    this.addErrors(error);
    return this;
  }

  /**
   * Raise the status to at least `status` without recording a check.
   *
   * @param status - A report status; PASS changes nothing.
   */
  raise(status: ReportStatus): this {
    if (!STATUS_PRECEDENCE.includes(status)) throw new RangeError(`Unknown report status ${String(status)}`);
    this.status = strongerStatus(this.status, status);
    return this;
  }

  /**
   * Add a note for people (e.g. what a check does not show).
   *
   * @param note - One sentence; repeated notes are kept once.
   */
  note(note: string): this {
    if (!this.notes.includes(note)) this.notes.push(note);
    return this;
  }

  /**
   * Set the report's trust result.
   *
   * @param trust - The judgement about the signing key.
   */
  setTrust(trust: TrustResult): this {
    this.trust = { ...trust };
    return this;
  }

  /**
   * Attach the report of a document found inside this one (a sealed plaintext).
   *
   * The inner status is raised into this report, the inner trust becomes this report's trust,
   * and a check `checkId` summarizes the inner result (`pass` for PASS, `unavailable` for
   * INDETERMINATE, `unsupported` for UNSUPPORTED, `fail` otherwise).
   *
   * @param inner - The inner document's report.
   * @param checkId - The id of the summarizing check.
   * @param detail - The summarizing check's detail.
   */
  setInner(inner: Report, checkId = 'inner', detail?: string): this {
    this.inner = inner;
    this.raise(inner.status);
    this.trust = { ...inner.trust };
    return this.record(checkId, checkStatusOf(inner.status), detail);
  }

  /** Whether a check with this id has been recorded. */
  has(id: string): boolean {
    return this.checks.has(id);
  }

  /** The status recorded for a check, or undefined when it has not been recorded. */
  checkStatus(id: string): CheckStatus | undefined {
    return this.checks.get(id)?.status;
  }

  /** The status so far (before the "nothing verified" rule of {@link ReportBuilder.build}). */
  currentStatus(): ReportStatus {
    return this.status;
  }

  /**
   * Produce the report.
   *
   * @param unreachedDetail - The detail given to planned checks never recorded.
   * @returns A fresh Report; the builder can still be used afterwards.
   */
  build(unreachedDetail = 'Not checked: an earlier problem stopped verification.'): Report {
    const checks: Check[] = [];
    let plannedRecorded = 0;
    for (const id of this.planned) {
      const check = this.checks.get(id);
      if (check === undefined) checks.push({ id, status: 'unchecked', detail: unreachedDetail });
      else {
        plannedRecorded++;
        checks.push({ ...check });
      }
    }
    // Planned ids differ (the constructor checks), so this finds any unplanned check.
    if (plannedRecorded < this.checks.size) {
      for (const [id, check] of this.checks) {
        if (!this.planned.includes(id)) checks.push({ ...check });
      }
    }
    let status = this.status;
    if (this.signedDetails.size > 0 && UNATTRIBUTED_STATUSES.includes(status)) {
      for (const check of checks) {
        const detail = check.status === 'pass' ? this.signedDetails.get(check.id) : undefined;
        if (detail !== undefined) check.detail = detail('not_signed');
      }
    }
    const errors = this.errors.map((error) => ({ ...error }));
    if (status === 'PASS' && !checks.some((check) => check.status === 'pass')) {
      status = 'INDETERMINATE';
      errors.push({ code: 'nothing_verified', path: '', message: 'No check passed, so nothing was verified.' });
    }
    const report: Report = {
      report_version: REPORT_VERSION,
      format: this.format,
      status,
      trust: { ...this.trust },
      checks,
      errors,
      notes: [...this.notes],
    };
    if (this.inner !== undefined) report.inner = this.inner;
    return report;
  }

  private record(id: string, status: CheckStatus, detail: string | undefined): this {
    if (typeof id !== 'string' || id === '') throw new TypeError('A check id must be a non-empty string');
    // A check recorded twice keeps its worse outcome: a later `pass` must not hide an earlier failure.
    const previous = this.checks.get(id);
    this.signedDetails.delete(id);
    if (previous !== undefined && CHECK_SEVERITY.indexOf(previous.status) < CHECK_SEVERITY.indexOf(status)) {
      return this;
    }
    const check: Check = { id, status };
    if (detail !== undefined) check.detail = detail;
    this.checks.set(id, check);
    return this;
  }

  private addErrors(errors: ErrorInput | undefined): void {
    if (errors === undefined) return;
    const list: readonly ReportError[] = Array.isArray(errors) ? errors : [errors as ReportError];
    for (const error of list) this.errors.push({ code: error.code, path: error.path, message: error.message });
  }
}

/**
 * Build a report for input that could not be verified at all (a parse failure, an unknown format,
 * an internal error): the given status, one failing check, one error.
 *
 * @param format - The format, usually `unknown`.
 * @param status - The report status.
 * @param checkId - The check that stands for what failed, e.g. `parse` or `format`.
 * @param error - The error to report.
 * @returns The report.
 */
export function singleErrorReport(
  format: ReportFormat,
  status: Exclude<ReportStatus, 'PASS'>,
  checkId: string,
  error: ReportError,
): Report {
  const builder = new ReportBuilder(format);
  if (status === 'INDETERMINATE') builder.unavailable(checkId, error.message, error);
  else if (status === 'UNSUPPORTED') builder.unsupported(checkId, error.message, error);
  else builder.fail(status, checkId, error.message, error);
  return builder.build();
}
