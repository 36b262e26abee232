/**
 * The semantic rule of each typed contract (PROTOCOL section 6) and the delegation parent rules.
 *
 * Each rule is its own check; breaking one is MISMATCH (a binding inside the signed content
 * disagrees), with an error at the member that breaks it. Rules run only on a contract that
 * passed its schema, so every member has its declared type here.
 *
 * Decisions where PROTOCOL leaves room:
 * - Instants are compared at full TS precision (up to nanoseconds), not truncated to
 *   milliseconds, so two instants that differ only past the third fraction digit still order.
 * - authority.delegation: the window is the closed interval [not_before, not_after];
 *   not_before must be strictly before not_after (an empty or one-instant window is a mistake,
 *   not a grant). A child's window lies within its parent's when parent.not_before <=
 *   child.not_before and child.not_after <= parent.not_after (equal edges allowed). Scopes are
 *   opaque tokens compared by exact string equality: no wildcards, prefixes or case folding.
 * - parent_sha256 is the hex SHA-256 of JCS of the whole parent contract, its payload_sha256 and
 *   sig_b64u included, so a child binds one signed parent, not merely its content.
 * - A child without parent_sha256 may still be given a parent: the delegate, scope and window
 *   rules are checked and `rule.parent` is `unchecked` (nothing binds that particular parent).
 * - proof.demand: due_by strictly after issued_at. effect.closure: closed_at equal to issued_at
 *   passes ("not before").
 * - imprimatur.clearance: the schema refuses an empty conditions list, so "present" means a
 *   non-empty list; conditions with cleared or denied is MISMATCH, as is conditional without.
 * - proof.transition: only pending->verified, pending->rejected and verified->revoked; staying in
 *   a state is not a transition. prior_sha256 is not resolved (the previous transition is not an
 *   input), so `rule.prior` is always `unchecked`.
 */
import { hexEncode, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import { jcs } from '../../json';
import type { JsonValue } from '../../json/types';
import { problem } from '../../verify/fields';
import type { ReportError } from '../../verify/report';
import type { ReportBuilder } from '../../verify/report-builder';
import { timestampToMillis } from '../../verify/timestamp';
import type { TypedContractType } from './contract-types';
import type {
  ClearanceBody,
  ClosureBody,
  DelegationBody,
  DemandBody,
  DivergenceBody,
  TransitionBody,
  TransitionState,
  TypedContract,
} from './schema';

/** The rule checks of each contract type, in report order (sigr.chain's are per link). */
export const TYPED_RULE_CHECKS: Readonly<Record<TypedContractType, readonly string[]>> = {
  'authority.delegation': [
    'rule.window_ordered',
    'rule.parent',
    'rule.parent_delegate',
    'rule.scope_within_parent',
    'rule.window_within_parent',
  ],
  'proof.demand': ['rule.due_after_issued'],
  'imprimatur.clearance': ['rule.conditions_iff_conditional'],
  'sigr.chain': [],
  'divergence.record': ['rule.digests_differ'],
  'effect.closure': ['rule.closed_not_before_issued'],
  'proof.transition': ['rule.transition_allowed', 'rule.prior'],
};

/** The allowed proof.transition pairs, as `from->to`. */
export const ALLOWED_TRANSITIONS: readonly string[] = ['pending->verified', 'pending->rejected', 'verified->revoked'];

/** A delegation parent as supplied: its value, and the contract when it is a well-formed delegation. */
export interface DelegationParent {
  value: JsonValue;
  contract?: TypedContract;
}

const FRACTION = /\.(\d{1,9})Z$/;

/**
 * Order two TS timestamps at full precision (fractions up to nanoseconds).
 *
 * @param first - A TS string.
 * @param second - Another TS string.
 * @returns A negative number if `first` is earlier, 0 if equal, a positive number if later.
 * @throws TypeError if either is not a string.
 * @throws RangeError if either is not a valid TS.
 * @example compareTimestamps('2026-01-01T00:00:00.0001Z', '2026-01-01T00:00:00Z') // 1
 */
export function compareTimestamps(first: string, second: string): number {
  const [firstSeconds, firstFraction] = splitTimestamp(first);
  const [secondSeconds, secondFraction] = splitTimestamp(second);
  if (firstSeconds !== secondSeconds) return firstSeconds < secondSeconds ? -1 : 1;
  // Both fractions are nine digits, so text order is numeric order.
  if (firstFraction === secondFraction) return 0;
  return firstFraction < secondFraction ? -1 : 1;
}

/**
 * The hex SHA-256 of JCS of a whole contract: what a child's parent_sha256 names.
 *
 * @param contract - The contract, with its payload_sha256 and sig_b64u.
 * @param crypto - The provider's SHA-256.
 * @returns 64 lowercase hex characters.
 * @throws TypeError if the value is not JSON (JCS refuses it).
 */
export function typedContractSha256(contract: JsonValue, crypto: Pick<CryptoProvider, 'sha256'>): string {
  return hexEncode(crypto.sha256(utf8Encode(jcs(contract))));
}

/**
 * Check the rule of a contract's own content (not the delegation parent rules, not sigr links).
 *
 * @param builder - The report builder.
 * @param contract - A contract that passed its schema.
 */
export function checkContractRule(builder: ReportBuilder, contract: TypedContract): void {
  switch (contract.contract_type) {
    case 'authority.delegation':
      return checkWindowOrdered(builder, contract.body as unknown as DelegationBody);
    case 'proof.demand':
      return checkDueAfterIssued(builder, contract, contract.body as unknown as DemandBody);
    case 'imprimatur.clearance':
      return checkConditions(builder, contract.body as unknown as ClearanceBody);
    case 'divergence.record':
      return checkDigestsDiffer(builder, contract.body as unknown as DivergenceBody);
    case 'effect.closure':
      return checkClosedNotBeforeIssued(builder, contract, contract.body as unknown as ClosureBody);
    case 'proof.transition':
      return checkTransition(builder, contract.body as unknown as TransitionBody);
    case 'sigr.chain':
      // Its rules are per link (./sigr).
      return;
  }
}

/**
 * Check an authority.delegation contract against its supplied parent.
 *
 * Records `rule.parent` (parent_sha256 binds this parent), `rule.parent_delegate`,
 * `rule.scope_within_parent` and `rule.window_within_parent`. Without a parent, the relation
 * rules are `unchecked`, and `rule.parent` is `unavailable` when the contract names a parent by
 * hash (a non-root delegation alone is never PASS) or `unchecked` for a root delegation.
 *
 * @param builder - The report builder.
 * @param contract - An authority.delegation contract that passed its schema.
 * @param parent - The immediate parent, if supplied.
 * @param crypto - For the parent's hash.
 */
export function checkDelegationParent(
  builder: ReportBuilder,
  contract: TypedContract,
  parent: DelegationParent | undefined,
  crypto: Pick<CryptoProvider, 'sha256'>,
): void {
  const body = contract.body as unknown as DelegationBody;
  const relations = ['rule.parent_delegate', 'rule.scope_within_parent', 'rule.window_within_parent'] as const;
  if (parent === undefined) {
    if (body.parent_sha256 === undefined) {
      builder.unchecked('rule.parent', 'The contract names no parent (a root delegation).');
    } else {
      builder.unavailable(
        'rule.parent',
        'The contract names a parent by parent_sha256, but no parent was supplied, so the chain cannot be verified.',
        problem(
          'parent_unavailable',
          '/body/parent_sha256',
          'The parent delegation this contract names was not supplied.',
        ),
      );
    }
    for (const id of relations) builder.unchecked(id, 'No parent delegation was supplied.');
    return;
  }
  checkParentHash(builder, body, parent, crypto);
  if (parent.contract === undefined) {
    for (const id of relations) {
      builder.unavailable(
        id,
        'The supplied parent is not a well-formed authority.delegation contract (see its own checks).',
      );
    }
    return;
  }
  const parentBody = parent.contract.body as unknown as DelegationBody;
  if (parentBody.delegate === body.delegator) {
    builder.pass('rule.parent_delegate', `The parent's delegate is this contract's delegator, ${body.delegator}.`);
  } else {
    builder.fail(
      'MISMATCH',
      'rule.parent_delegate',
      `The delegator ${body.delegator} is not the parent's delegate ${parentBody.delegate}.`,
      problem(
        'delegator_not_parent_delegate',
        '/body/delegator',
        'The delegator must be the delegate of the parent delegation.',
      ),
    );
  }
  const widened: ReportError[] = [];
  body.scope.forEach((scope, index) => {
    if (!parentBody.scope.includes(scope)) {
      widened.push(
        problem(
          'scope_not_in_parent',
          `/body/scope/${index}`,
          `Scope ${JSON.stringify(scope)} is not granted by the parent.`,
        ),
      );
    }
  });
  if (widened.length === 0) {
    builder.pass('rule.scope_within_parent', 'Every scope is granted by the parent.');
  } else {
    builder.fail(
      'MISMATCH',
      'rule.scope_within_parent',
      `${widened.length} scope(s) widen the parent's grant.`,
      widened,
    );
  }
  const outside: ReportError[] = [];
  if (compareTimestamps(body.not_before, parentBody.not_before) < 0) {
    outside.push(
      problem(
        'window_outside_parent',
        '/body/not_before',
        `not_before is earlier than the parent's not_before ${parentBody.not_before}.`,
      ),
    );
  }
  if (compareTimestamps(body.not_after, parentBody.not_after) > 0) {
    outside.push(
      problem(
        'window_outside_parent',
        '/body/not_after',
        `not_after is later than the parent's not_after ${parentBody.not_after}.`,
      ),
    );
  }
  if (outside.length === 0) {
    builder.pass(
      'rule.window_within_parent',
      `The window lies within the parent's, ${parentBody.not_before} to ${parentBody.not_after}.`,
    );
  } else {
    builder.fail('MISMATCH', 'rule.window_within_parent', "The window reaches outside the parent's window.", outside);
  }
}

function checkParentHash(
  builder: ReportBuilder,
  body: DelegationBody,
  parent: DelegationParent,
  crypto: Pick<CryptoProvider, 'sha256'>,
): void {
  if (body.parent_sha256 === undefined) {
    builder.unchecked(
      'rule.parent',
      'The contract carries no parent_sha256, so no particular parent is bound; the supplied parent is related by delegate, scope and window only.',
    );
    return;
  }
  let actual: string;
  try {
    actual = typedContractSha256(parent.value, crypto);
  } catch {
    builder.unavailable(
      'rule.parent',
      'The supplied parent is not JSON that can be canonicalized, so its hash is unknown.',
    );
    return;
  }
  if (actual === body.parent_sha256) {
    builder.pass('rule.parent', 'parent_sha256 equals SHA-256 of the JCS of the supplied parent contract.');
  } else {
    builder.fail(
      'MISMATCH',
      'rule.parent',
      'parent_sha256 does not name the supplied parent.',
      problem(
        'parent_sha256_mismatch',
        '/body/parent_sha256',
        `The supplied parent's SHA-256 is ${actual}, not parent_sha256.`,
      ),
    );
  }
}

function checkWindowOrdered(builder: ReportBuilder, body: DelegationBody): void {
  if (compareTimestamps(body.not_before, body.not_after) < 0) {
    builder.pass('rule.window_ordered', `not_before ${body.not_before} is before not_after ${body.not_after}.`);
  } else {
    builder.fail(
      'MISMATCH',
      'rule.window_ordered',
      `not_before ${body.not_before} is not before not_after ${body.not_after}.`,
      problem('window_not_ordered', '/body/not_after', 'not_after must be later than not_before.'),
    );
  }
}

function checkDueAfterIssued(builder: ReportBuilder, contract: TypedContract, body: DemandBody): void {
  if (compareTimestamps(body.due_by, contract.issued_at) > 0) {
    builder.pass('rule.due_after_issued', `due_by ${body.due_by} is after issued_at ${contract.issued_at}.`);
  } else {
    builder.fail(
      'MISMATCH',
      'rule.due_after_issued',
      `due_by ${body.due_by} is not after issued_at ${contract.issued_at}.`,
      problem('due_not_after_issued', '/body/due_by', "due_by must be later than the contract's issued_at."),
    );
  }
}

function checkConditions(builder: ReportBuilder, body: ClearanceBody): void {
  const conditional = body.decision === 'conditional';
  const present = body.conditions !== undefined;
  if (conditional === present) {
    builder.pass(
      'rule.conditions_iff_conditional',
      conditional
        ? 'A conditional clearance lists its conditions.'
        : `A ${body.decision} decision carries no conditions.`,
    );
  } else if (conditional) {
    builder.fail(
      'MISMATCH',
      'rule.conditions_iff_conditional',
      'The decision is conditional but no conditions are listed.',
      problem('conditions_missing', '/body/conditions', 'A conditional clearance must list its conditions.'),
    );
  } else {
    builder.fail(
      'MISMATCH',
      'rule.conditions_iff_conditional',
      `The decision is ${body.decision} but conditions are listed.`,
      problem('conditions_not_allowed', '/body/conditions', 'Only a conditional clearance may list conditions.'),
    );
  }
}

function checkDigestsDiffer(builder: ReportBuilder, body: DivergenceBody): void {
  // Both are lowercase HEX64 by schema, so text equality is byte equality.
  if (body.expected_sha256 !== body.observed_sha256) {
    builder.pass('rule.digests_differ', 'expected_sha256 and observed_sha256 differ.');
  } else {
    builder.fail(
      'MISMATCH',
      'rule.digests_differ',
      'expected_sha256 equals observed_sha256: a divergence record must record a difference.',
      problem('digests_equal', '/body/observed_sha256', 'observed_sha256 must differ from expected_sha256.'),
    );
  }
}

function checkClosedNotBeforeIssued(builder: ReportBuilder, contract: TypedContract, body: ClosureBody): void {
  if (compareTimestamps(body.closed_at, contract.issued_at) >= 0) {
    builder.pass(
      'rule.closed_not_before_issued',
      `closed_at ${body.closed_at} is not before issued_at ${contract.issued_at}.`,
    );
  } else {
    builder.fail(
      'MISMATCH',
      'rule.closed_not_before_issued',
      `closed_at ${body.closed_at} is before issued_at ${contract.issued_at}.`,
      problem(
        'closed_before_issued',
        '/body/closed_at',
        "closed_at must not be earlier than the contract's issued_at.",
      ),
    );
  }
}

function checkTransition(builder: ReportBuilder, body: TransitionBody): void {
  const pair = transitionPair(body.from_state, body.to_state);
  if (ALLOWED_TRANSITIONS.includes(pair)) {
    builder.pass('rule.transition_allowed', `${body.from_state} to ${body.to_state} is an allowed transition.`);
  } else {
    builder.fail(
      'MISMATCH',
      'rule.transition_allowed',
      `${body.from_state} to ${body.to_state} is not an allowed transition (allowed: ${ALLOWED_TRANSITIONS.join(', ')}).`,
      problem(
        'transition_not_allowed',
        '/body/to_state',
        `A proof cannot move from ${body.from_state} to ${body.to_state}.`,
      ),
    );
  }
  builder.unchecked(
    'rule.prior',
    body.prior_sha256 === undefined
      ? 'The transition names no prior transition.'
      : 'prior_sha256 names the previous transition, which is not an input here; the link was not checked.',
  );
}

function transitionPair(from: TransitionState, to: TransitionState): string {
  return `${from}->${to}`;
}

function splitTimestamp(text: string): [number, string] {
  if (typeof text !== 'string') throw new TypeError('A timestamp must be a string');
  const match = FRACTION.exec(text);
  const whole = match === null ? text : `${text.slice(0, match.index)}Z`;
  return [timestampToMillis(whole), (match?.[1] ?? '').padEnd(9, '0')];
}
