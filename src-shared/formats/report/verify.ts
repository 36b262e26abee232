/**
 * Audit report verification (`evroom.report/1`, PROTOCOL section 12).
 *
 * Checks, in order: the schema (closed member sets, every row's values from the vocabulary),
 * Rule D1 over the whole report (digest, then the auditor's Ed25519 signature), that every count
 * equals what the receipt rows say, that each bundle's finding count equals its findings listed,
 * and that the trust snapshot's hash is the hash of its keys. A count, finding count or snapshot
 * hash that disagrees is MISMATCH: the report's summary says something its own rows do not.
 */
import { hexEncode, utf8Encode } from '../../crypto';
import { jcs } from '../../json';
import type { JsonNode, JsonValue } from '../../json/types';
import { isJsonObject, memberProblems, objectMember, problem, type JsonObject } from '../../verify/fields';
import { keyIdProblem } from '../../verify/keys';
import { SIGNER_ROLES } from '../../verify/context';
import type { FormatInput } from '../../verify/format-module';
import { STATUS_PRECEDENCE, TRUST_STATUSES, type Report, type ReportError } from '../../verify/report';
import { ReportBuilder } from '../../verify/report-builder';
import { checkRuleD1 } from '../../verify/signature';
import { isTimestamp } from '../../verify/timestamp';
import {
  ANCHOR_STATES,
  COMPLETENESS_CONSISTENCY,
  COMPLETENESS_MEMBERS,
  COMPLETENESS_SIGNERS,
  COMPLETENESS_STATUSES,
  countReportRows,
  MAX_REPORTED_MISSING,
  REPORT_FORMAT_ID,
  REPORT_ID_PATTERN,
  REPORT_MEMBERS,
  REPORT_OPTIONAL_MEMBERS,
  ROW_MEMBERS,
} from './model';

/** The checks of a report's report, in order. */
export const REPORT_CHECKS = Object.freeze([
  'schema',
  'payload_sha256',
  'signature',
  'counts',
  'findings',
  'trust_snapshot',
] as const);

/** The note every report verification carries. */
export const REPORT_NOTE =
  'An audit report is signed by the auditor workstation that made it; its trust says whether you pinned that auditor key.';

const HEX64 = /^[0-9a-f]{64}$/;

/** A snapshot key's `roles`: a non-empty list of distinct role names. */
function isRoleList(value: unknown): value is string[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((role) => typeof role === 'string' && (SIGNER_ROLES as readonly string[]).includes(role)) &&
    new Set(value).size === value.length
  );
}
/** Schema problems listed before giving up: a broken 100,000-row report need not list each. */
const MAX_PROBLEMS = 50;

/**
 * Recognize an audit report by its `report_format` member.
 *
 * @param node - Any parsed document.
 * @returns `report` or undefined.
 */
export function detectReport(node: JsonNode): 'report' | undefined {
  const member = objectMember(node, 'report_format');
  return member !== undefined && member.type === 'string' && member.value.startsWith('evroom.report/')
    ? 'report'
    : undefined;
}

function isCountMap(value: JsonValue | undefined): value is Record<string, number> {
  return (
    isJsonObject(value) &&
    Object.values(value).every((count) => typeof count === 'number' && Number.isSafeInteger(count) && count >= 0)
  );
}

/** Schema problems of a report (at most {@link MAX_PROBLEMS}). */
function schemaProblems(document: JsonObject): ReportError[] {
  const problems: ReportError[] = memberProblems(document, '', [...REPORT_MEMBERS], [...REPORT_OPTIONAL_MEMBERS]);
  const add = (path: string, message: string, code = 'invalid_value'): void => {
    if (problems.length < MAX_PROBLEMS) problems.push(problem(code, path, message));
  };
  if (document.report_format !== REPORT_FORMAT_ID)
    add('/report_format', `"report_format" must be "${REPORT_FORMAT_ID}".`, 'unsupported_version');
  if (typeof document.report_id !== 'string' || !REPORT_ID_PATTERN.test(document.report_id))
    add('/report_id', '"report_id" must be rpt_ and a ULID.');
  if (!isTimestamp(document.generated_at)) add('/generated_at', '"generated_at" must be a timestamp.');
  const generator = document.generator;
  if (!isJsonObject(generator) || typeof generator.name !== 'string' || typeof generator.version !== 'string') {
    add('/generator', '"generator" must be {name, version}.');
  }
  const scope = document.scope;
  if (
    !isJsonObject(scope) ||
    !isJsonObject(scope.filters) ||
    (scope.as_of !== undefined && !isTimestamp(scope.as_of))
  ) {
    add('/scope', '"scope" must be {filters, as_of?} with as_of a timestamp.');
  }
  const environment = document.environment;
  if (
    !isJsonObject(environment) ||
    typeof environment.offline !== 'boolean' ||
    typeof environment.ledger_audit_head !== 'string' ||
    !HEX64.test(environment.ledger_audit_head)
  ) {
    add('/environment', '"environment" must be {offline: boolean, ledger_audit_head: HEX64}.');
  }
  const snapshot = document.trust_snapshot;
  if (
    !isJsonObject(snapshot) ||
    !Array.isArray(snapshot.keys) ||
    typeof snapshot.sha256 !== 'string' ||
    !HEX64.test(snapshot.sha256)
  ) {
    add('/trust_snapshot', '"trust_snapshot" must be {keys: [...], sha256: HEX64}.');
  } else if (!snapshot.keys.every((key) => isJsonObject(key) && typeof key.key_id === 'string')) {
    add('/trust_snapshot/keys', 'Every trust snapshot key must be an object with a key_id.');
  } else {
    snapshot.keys.forEach((key, index) => {
      const roles = (key as Record<string, unknown>)['roles'];
      if (roles !== undefined && !isRoleList(roles)) {
        add(
          `/trust_snapshot/keys/${index}/roles`,
          `"roles" must be a non-empty list of distinct role names (${SIGNER_ROLES.join(', ')}).`,
        );
      }
    });
  }
  const inputs = document.inputs;
  if (!isJsonObject(inputs) || !Array.isArray(inputs.bundles)) add('/inputs', '"inputs" must be {bundles: [...]}.');
  else {
    inputs.bundles.forEach((bundle, index) => {
      if (
        !isJsonObject(bundle) ||
        typeof bundle.bundle_sha256 !== 'string' ||
        typeof bundle.findings !== 'number' ||
        !Number.isSafeInteger(bundle.findings)
      ) {
        add(`/inputs/bundles/${index}`, 'A bundle must carry bundle_sha256 and a findings count.');
      }
    });
  }
  const counts = document.counts;
  if (!isJsonObject(counts)) add('/counts', '"counts" must be an object.');
  else {
    problems.push(
      ...memberProblems(counts, '/counts', ['by_status', 'by_trust', 'by_format', 'by_anchor']).slice(0, MAX_PROBLEMS),
    );
    for (const name of ['by_status', 'by_trust', 'by_format', 'by_anchor']) {
      if (counts[name] !== undefined && !isCountMap(counts[name]))
        add(`/counts/${name}`, `"${name}" must map names to non-negative integers.`);
    }
  }
  if (
    !Array.isArray(document.findings) ||
    !document.findings.every(
      (finding) =>
        isJsonObject(finding) &&
        typeof finding.bundle_sha256 === 'string' &&
        typeof finding.code === 'string' &&
        typeof finding.message === 'string',
    )
  ) {
    add('/findings', '"findings" must be a list of {bundle_sha256, code, path, message}.');
  }
  if (document.completeness !== undefined) {
    const listed = new Set(
      isJsonObject(inputs) && Array.isArray(inputs.bundles)
        ? inputs.bundles.map((bundle) => (isJsonObject(bundle) ? bundle.bundle_sha256 : undefined))
        : [],
    );
    for (const [path, message] of completenessProblems(document.completeness, listed)) add(path, message);
  }
  if (!Array.isArray(document.claim_limits) || !document.claim_limits.every((text) => typeof text === 'string')) {
    add('/claim_limits', '"claim_limits" must be a list of sentences.');
  }
  const signer = document.signer;
  if (!isJsonObject(signer) || typeof signer.key_id !== 'string' || signer.key_id.length === 0)
    add('/signer', '"signer" must be {key_id}.');
  else {
    // PROTOCOL section 0's one rule: any DID or an opaque id of printable ASCII without spaces.
    const keyIdError = keyIdProblem(signer.key_id);
    if (keyIdError !== undefined) add('/signer/key_id', `"key_id" is not a key id: ${keyIdError}`);
  }
  if (!Array.isArray(document.receipts)) add('/receipts', '"receipts" must be a list.');
  else {
    document.receipts.forEach((row, index) => {
      if (problems.length >= MAX_PROBLEMS) return;
      const path = `/receipts/${index}`;
      if (!isJsonObject(row)) return add(path, 'A receipt row must be an object.');
      problems.push(...memberProblems(row, path, [...ROW_MEMBERS]));
      if (typeof row.receipt_sha256 !== 'string' || !HEX64.test(row.receipt_sha256))
        add(`${path}/receipt_sha256`, 'receipt_sha256 must be HEX64.');
      if (row.receipt_id !== null && typeof row.receipt_id !== 'string')
        add(`${path}/receipt_id`, 'receipt_id must be a string or null.');
      if (typeof row.format !== 'string') add(`${path}/format`, 'format must be a string.');
      if (!(STATUS_PRECEDENCE as readonly unknown[]).includes(row.status))
        add(`${path}/status`, 'status must be a report status.');
      if (!(TRUST_STATUSES as readonly unknown[]).includes(row.trust))
        add(`${path}/trust`, 'trust must be a trust status.');
      if (!(ANCHOR_STATES as readonly unknown[]).includes(row.anchor_state))
        add(`${path}/anchor_state`, `anchor_state must be one of ${ANCHOR_STATES.join(', ')}.`);
      if (row.issued_at !== null && !isTimestamp(row.issued_at))
        add(`${path}/issued_at`, 'issued_at must be a timestamp or null.');
    });
  }
  return problems.slice(0, MAX_PROBLEMS);
}

function isIndexOrNull(value: JsonValue | undefined): boolean {
  return value === null || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0);
}

function isBoundOrNull(value: JsonValue | undefined): boolean {
  return value === null || (typeof value === 'string' && value.length > 0 && value.length <= 64);
}

/** The problems of a report's `completeness` list: [JSON Pointer, message] pairs. */
function completenessProblems(value: JsonValue, bundles: ReadonlySet<unknown>): [string, string][] {
  if (!Array.isArray(value) || value.length === 0)
    return [['/completeness', '"completeness" must be a non-empty list (absent when no bundle carried log evidence).']];
  const found: [string, string][] = [];
  value.forEach((entry, index) => {
    const path = `/completeness/${index}`;
    if (!isJsonObject(entry)) return found.push([path, 'A completeness entry must be an object.']);
    for (const item of memberProblems(entry, path, [...COMPLETENESS_MEMBERS])) found.push([item.path, item.message]);
    if (typeof entry.bundle_sha256 !== 'string' || !bundles.has(entry.bundle_sha256))
      found.push([`${path}/bundle_sha256`, 'bundle_sha256 must name a bundle of inputs.bundles.']);
    if (entry.tenant_id !== null && typeof entry.tenant_id !== 'string')
      found.push([`${path}/tenant_id`, 'tenant_id must be a string or null.']);
    if (entry.origin !== null && typeof entry.origin !== 'string')
      found.push([`${path}/origin`, 'origin must be a string or null.']);
    const period = entry.period;
    if (
      !isJsonObject(period) ||
      memberProblems(period, '', ['since', 'until']).length > 0 ||
      !isBoundOrNull(period.since) ||
      !isBoundOrNull(period.until)
    )
      found.push([`${path}/period`, 'period must be {since, until}, each a timestamp (text) or null.']);
    if (!(COMPLETENESS_STATUSES as readonly unknown[]).includes(entry.status))
      found.push([`${path}/status`, `status must be one of ${COMPLETENESS_STATUSES.join(', ')}.`]);
    for (const name of ['tree_size', 'first_index', 'last_index'])
      if (!isIndexOrNull(entry[name])) found.push([`${path}/${name}`, `${name} must be a whole number or null.`]);
    const count = entry.missing_count;
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0)
      found.push([`${path}/missing_count`, 'missing_count must be a whole number.']);
    const missing = entry.missing;
    if (
      !Array.isArray(missing) ||
      missing.length > MAX_REPORTED_MISSING ||
      (typeof count === 'number' && missing.length > count) ||
      !missing.every(
        (item, at) =>
          typeof item === 'number' && isIndexOrNull(item) && (at === 0 || (missing[at - 1] as number) < item),
      )
    )
      found.push([
        `${path}/missing`,
        `missing must list at most ${MAX_REPORTED_MISSING} leaf indices, ascending, no more than missing_count.`,
      ]);
    if (typeof entry.stale !== 'boolean') found.push([`${path}/stale`, 'stale must be true or false.']);
    if (!(COMPLETENESS_SIGNERS as readonly unknown[]).includes(entry.signer))
      found.push([`${path}/signer`, `signer must be one of ${COMPLETENESS_SIGNERS.join(', ')}.`]);
    if (entry.consistency !== null && !(COMPLETENESS_CONSISTENCY as readonly unknown[]).includes(entry.consistency))
      found.push([`${path}/consistency`, `consistency must be one of ${COMPLETENESS_CONSISTENCY.join(', ')} or null.`]);
    if (typeof entry.sentence !== 'string' || entry.sentence.length === 0)
      found.push([`${path}/sentence`, 'sentence must be a non-empty string.']);
    return undefined;
  });
  return found;
}

/** Count problems: every listed count against the rows, a missing value counting as 0. */
function countProblems(document: JsonObject): ReportError[] {
  const rows = document.receipts as unknown as {
    status: string;
    trust: string;
    format: string;
    anchor_state: string;
  }[];
  const recomputed = countReportRows(rows as never);
  const stated = document.counts as unknown as Record<string, Record<string, number>>;
  const problems: ReportError[] = [];
  for (const dimension of ['by_status', 'by_trust', 'by_format', 'by_anchor'] as const) {
    const mine = recomputed[dimension];
    const theirs = stated[dimension] ?? {};
    for (const name of new Set([...Object.keys(mine), ...Object.keys(theirs)])) {
      const expected = mine[name] ?? 0;
      const claimed = theirs[name] ?? 0;
      if (expected !== claimed) {
        problems.push(
          problem(
            'count_mismatch',
            `/counts/${dimension}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
            `The report counts ${claimed} for ${name}; its receipt rows say ${expected}.`,
          ),
        );
      }
    }
  }
  return problems;
}

/** The trust snapshot's hash (see model.ts). */
export function trustSnapshotSha256(keys: readonly JsonValue[], sha256: (data: Uint8Array) => Uint8Array): string {
  return hexEncode(sha256(utf8Encode(jcs({ keys: [...keys] }))));
}

/**
 * Verify an audit report.
 *
 * @param input - The parsed document and context.
 * @returns The report's report; format `report`.
 */
export function verifyReportDocument(input: FormatInput): Report {
  const builder = new ReportBuilder('report', REPORT_CHECKS);
  builder.note(REPORT_NOTE);
  const document = input.value;
  if (!isJsonObject(document)) {
    builder.fail(
      'MALFORMED',
      'schema',
      'An audit report is a JSON object.',
      problem('invalid_type', '', 'The report must be a JSON object.'),
    );
    return builder.build();
  }
  const problems = schemaProblems(document);
  if (problems.length > 0) {
    builder.fail(
      'MALFORMED',
      'schema',
      `The report breaks the ${REPORT_FORMAT_ID} schema (${problems.length === MAX_PROBLEMS ? `at least ${MAX_PROBLEMS}` : problems.length} problem${problems.length === 1 ? '' : 's'}).`,
      problems,
    );
    return builder.build();
  }
  builder.pass(
    'schema',
    `The document is a ${REPORT_FORMAT_ID} report with ${(document.receipts as JsonValue[]).length} receipt rows.`,
  );
  checkRuleD1(builder, input.ctx, document, (document.signer as JsonObject).key_id as string, {
    keyIdPath: '/signer/key_id',
    role: 'auditor',
  });
  const counts = countProblems(document);
  if (counts.length === 0) builder.pass('counts', 'Every count equals what the receipt rows say.');
  else
    builder.fail(
      'MISMATCH',
      'counts',
      `${counts.length} count${counts.length === 1 ? '' : 's'} disagree with the receipt rows.`,
      counts,
    );
  const findings = document.findings as JsonObject[];
  const findingProblems: ReportError[] = [];
  (document.inputs as { bundles: JsonObject[] }).bundles.forEach((bundle, index) => {
    const listed = findings.filter((finding) => finding.bundle_sha256 === bundle.bundle_sha256).length;
    if (listed !== bundle.findings) {
      findingProblems.push(
        problem(
          'count_mismatch',
          `/inputs/bundles/${index}/findings`,
          `The bundle counts ${String(bundle.findings)} findings; the report lists ${listed}.`,
        ),
      );
    }
  });
  if (findingProblems.length === 0)
    builder.pass('findings', 'Each bundle’s finding count equals the findings listed for it.');
  else
    builder.fail(
      'MISMATCH',
      'findings',
      'A bundle’s finding count disagrees with the findings listed.',
      findingProblems,
    );
  const snapshot = document.trust_snapshot as { keys: JsonValue[]; sha256: string };
  const recomputed = trustSnapshotSha256(snapshot.keys, (data) => input.ctx.crypto.sha256(data));
  if (recomputed === snapshot.sha256)
    builder.pass('trust_snapshot', 'The trust snapshot’s sha256 is the hash of its keys.');
  else
    builder.fail(
      'MISMATCH',
      'trust_snapshot',
      'The trust snapshot’s sha256 is not the hash of its keys.',
      problem('digest_mismatch', '/trust_snapshot/sha256', `The keys hash to ${recomputed}.`),
    );
  return builder.build();
}
