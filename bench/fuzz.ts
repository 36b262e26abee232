/**
 * `npx tsx bench/fuzz.ts [--quick] [--seed N] [--count N] [--workers N] [--only I]`: seeded,
 * reproducible mutation fuzzing of valid documents of every format.
 *
 * Every valid (PASS) sample of every format (src-shared/formats/<name>/samples.ts, through
 * `buildSamples`) is mutated: leaf changes, deletions, additions, duplicate names, string escapes,
 * number respellings, role and key swaps, size and depth extremes, and raw byte edits. Each
 * mutant is verified four times, and an oracle judges the results:
 * - false PASS: a mutant that verifies PASS must have exactly the signed content of its original,
 *   as the format itself states it (`signedContent`, the bytes each signature covers; for sealed
 *   documents, which sign nothing readable, the whole document's JCS). An envelope that is PASS
 *   names distinct keys in its roles, and one that is PASS and trusted (keys pinned with their
 *   roles) names each role's original key.
 * - no `internal` error in any report (the verifier reached no verdict: an engine error).
 * - differential: the node provider (OpenSSL) and the portable provider (@noble) give identical
 *   reports, byte for byte.
 * - one key resolution: the same keys pinned (`--trust`) or only given (`--keys`) give the same
 *   status.
 * Mutation i is a pure function of (seed, i), so `--seed S --only I` replays one. The seed is
 * printed first; exit 1 on any finding, with the replay line of the first few.
 *
 * Full mode is 1,000,000 mutations over child processes (one per core by default); `--quick` is
 * 10,000 (bench/fuzz.quick.test.ts runs it in every CI run).
 *
 * A format joins by its registry row alone: its samples come through `buildSamples` and its
 * signed bytes through its module's `signedContent`, whether or not it has issuers. The run says
 * which formats it fuzzed, with how many valid samples, and which format of the registry it did
 * not (one with no valid sample): the quick test holds that list, so a format whose valid samples
 * go missing is not left out in silence.
 */
import { fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createPortableProvider } from '../src-shared/crypto';
import type { CryptoProvider } from '../src-shared/crypto/provider';
import { jcsTree, parseJsonTree } from '../src-shared/json';
import type { JsonNode } from '../src-shared/json/types';
import type { KeyEntry, SignerRole, VerifyContext } from '../src-shared/verify/context';
import { createVerifyContext } from '../src-shared/verify/context';
import type { Report } from '../src-shared/verify/report';
import { signedContent } from '../src-shared/verify/signed-content';
import { catalogueModules } from '../src-shared/verify/registry';
import { verifyDocument } from '../src-shared/verify/verify';
import { createNodeCryptoProvider } from '../src-main/core/node-crypto-provider';
import { buildSamples, SAMPLES_NOW } from '../src-main/operations/samples';

/** A mutable copy of a parsed node; a string may carry its own spelling (`raw`). */
type Node =
  | { type: 'null' }
  | { type: 'boolean'; value: boolean }
  | { type: 'string'; value: string; raw?: string }
  | { type: 'number'; lexeme: string }
  | { type: 'array'; items: Node[] }
  | { type: 'object'; members: [string, Node][] }
  | { type: 'raw'; text: string };

interface Base {
  file: string;
  format: string;
  text: string;
  tree: Node;
  signed: string;
  roles: Record<string, string> | undefined;
}

interface Finding {
  index: number;
  kind: 'false_pass' | 'internal' | 'differential' | 'resolution' | 'roles';
  detail: string;
}

interface Summary {
  count: number;
  statuses: Record<string, number>;
  operations: Record<string, number>;
  findings: Finding[];
  findingCount: number;
  pass: number;
}

const ENVELOPE_ROLES = ['requester', 'operator', 'service'] as const;

// --- deterministic randomness ---------------------------------------------------------------

/** splitmix32 over (seed, index): mutation i never depends on mutation i - 1. */
function random(seed: number, index: number): () => number {
  let state = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(index >>> 0, 0x85ebca6b) ^ 0x5bd1e995) >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return ((z ^ (z >>> 16)) >>> 0) / 4294967296;
  };
}

function pick<T>(rng: () => number, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)] as T;
}

// --- trees ----------------------------------------------------------------------------------

function mutable(node: JsonNode): Node {
  switch (node.type) {
    case 'array':
      return { type: 'array', items: node.items.map(mutable) };
    case 'object':
      return { type: 'object', members: node.members.map(([name, value]) => [name, mutable(value)]) };
    case 'number':
      return { type: 'number', lexeme: node.lexeme };
    case 'string':
      return { type: 'string', value: node.value };
    case 'boolean':
      return { type: 'boolean', value: node.value };
    default:
      return { type: 'null' };
  }
}

function clone(node: Node): Node {
  return structuredClone(node);
}

function write(node: Node): string {
  switch (node.type) {
    case 'null':
      return 'null';
    case 'boolean':
      return String(node.value);
    case 'number':
      return node.lexeme;
    case 'string':
      return node.raw ?? JSON.stringify(node.value);
    case 'raw':
      return node.text;
    case 'array':
      return `[${node.items.map(write).join(',')}]`;
    case 'object':
      return `{${node.members.map(([name, value]) => `${JSON.stringify(name)}:${write(value)}`).join(',')}}`;
  }
}

/** Every node with the container holding it, depth first (the root has none). */
function walk(root: Node): { node: Node; parent?: Node; key?: number }[] {
  const out: { node: Node; parent?: Node; key?: number }[] = [{ node: root }];
  for (let index = 0; index < out.length; index += 1) {
    const { node } = out[index] as { node: Node };
    if (node.type === 'array') node.items.forEach((item, key) => out.push({ node: item, parent: node, key }));
    if (node.type === 'object') node.members.forEach(([, value], key) => out.push({ node: value, parent: node, key }));
  }
  return out;
}

function replace(parent: Node | undefined, key: number | undefined, next: Node): boolean {
  if (parent?.type === 'array' && key !== undefined) parent.items[key] = next;
  else if (parent?.type === 'object' && key !== undefined) (parent.members[key] as [string, Node])[1] = next;
  else return false;
  return true;
}

function nested(depth: number, leaf: string): string {
  return `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;
}

// --- mutations ------------------------------------------------------------------------------

interface Pool {
  /** String values seen in any sample (key ids, keys, signatures, digests), for swaps. */
  strings: string[];
  keyIds: string[];
}

type Mutation = (tree: Node, rng: () => number, pool: Pool) => boolean;

function leaves(tree: Node): { node: Node; parent?: Node; key?: number }[] {
  return walk(tree).filter(
    (entry) => entry.parent !== undefined && entry.node.type !== 'array' && entry.node.type !== 'object',
  );
}

function mutateString(value: string, rng: () => number): string {
  const at = Math.floor(rng() * (value.length + 1));
  switch (Math.floor(rng() * 8)) {
    case 0:
      return '';
    case 1:
      return value.slice(0, at) + value.slice(at + 1);
    case 2:
      return (
        value.slice(0, at) +
        pick(rng, ['A', '0', 'z', '=', '-', '_', '/', '+', ' ', 'é', '\u0000', '\ud83d\ude00']) +
        value.slice(at)
      );
    case 3: {
      const code = value.charCodeAt(Math.min(at, value.length - 1));
      return (
        value.slice(0, at) +
        String.fromCharCode(Number.isNaN(code) ? 65 : code ^ (1 << Math.floor(rng() * 6))) +
        value.slice(at + 1)
      );
    }
    case 4:
      return value.toUpperCase();
    case 5:
      return value + value;
    case 6:
      return `${value}=`;
    default:
      return value.slice(0, Math.max(0, value.length - 1 - Math.floor(rng() * 3)));
  }
}

const MUTATIONS: Record<string, Mutation> = {
  leaf(tree, rng) {
    const target = pick(rng, leaves(tree));
    if (target === undefined) return false;
    const { node } = target;
    let next: Node;
    if (node.type === 'string') next = { type: 'string', value: mutateString(node.value, rng) };
    else if (node.type === 'number')
      next = {
        type: 'number',
        lexeme: pick(rng, ['0', '1', '-1', String(Number(node.lexeme) + 1), '9007199254740993', '1.5', '-0']),
      };
    else if (node.type === 'boolean') next = { type: 'boolean', value: !node.value };
    else
      next = pick(rng, [
        { type: 'string', value: '' },
        { type: 'number', lexeme: '0' },
        { type: 'boolean', value: false },
      ] as Node[]);
    // Sometimes a change of type instead.
    if (rng() < 0.2)
      next = pick(rng, [
        { type: 'null' },
        { type: 'array', items: [] },
        { type: 'object', members: [] },
        { type: 'string', value: '1' },
        { type: 'number', lexeme: '1' },
      ] as Node[]);
    return replace(target.parent, target.key, next);
  },
  delete(tree, rng) {
    const target = pick(
      rng,
      walk(tree).filter((entry) => entry.parent !== undefined),
    );
    if (target === undefined) return false;
    if (target.parent?.type === 'array') target.parent.items.splice(target.key as number, 1);
    else if (target.parent?.type === 'object') target.parent.members.splice(target.key as number, 1);
    return true;
  },
  add(tree, rng, pool) {
    const containers = walk(tree).filter((entry) => entry.node.type === 'object' || entry.node.type === 'array');
    const target = pick(rng, containers)?.node;
    const value: Node =
      rng() < 0.5 ? { type: 'string', value: pick(rng, pool.strings) } : { type: 'number', lexeme: '1' };
    if (target?.type === 'object')
      target.members.splice(Math.floor(rng() * (target.members.length + 1)), 0, [
        pick(rng, ['extra', 'note', 'signature', 'key_id', 'public_key', '__proto__', 'sig_b64u', 'status']),
        value,
      ]);
    else if (target?.type === 'array') target.items.splice(Math.floor(rng() * (target.items.length + 1)), 0, value);
    else return false;
    return true;
  },
  duplicate(tree, rng) {
    const objects = walk(tree).filter((entry) => entry.node.type === 'object' && entry.node.members.length > 0);
    const target = pick(rng, objects)?.node;
    if (target?.type !== 'object') return false;
    const [name, value] = pick(rng, target.members);
    // The second spelling either repeats the value or changes it: a last-wins parser would differ.
    target.members.push([name, rng() < 0.5 ? clone(value) : { type: 'string', value: 'duplicate' }]);
    return true;
  },
  escape(tree, rng) {
    const strings = walk(tree).filter((entry) => entry.node.type === 'string');
    const target = pick(rng, strings)?.node;
    if (target?.type !== 'string') return false;
    const value = target.value;
    switch (Math.floor(rng() * 4)) {
      case 0: // every character as \uXXXX: the same string, spelled otherwise
        target.raw = `"${[...value].map((char) => [...char].map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')).join('')}"`;
        break;
      case 1: // uppercase hex in escapes, and \/ for /
        target.raw = `"${value.replace(/[/a-zA-Z]/g, (char) => (char === '/' ? '\\/' : `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`))}"`;
        break;
      case 2: // a lone surrogate escape
        target.raw = `"${value}\\ud800"`;
        break;
      default: // an escape that does not exist, or a raw control character
        target.raw = `"${value}${pick(rng, ['\\x41', '\\u12', '\u0001', '\\'])}"`;
    }
    return true;
  },
  number(tree, rng) {
    const numbers = walk(tree).filter((entry) => entry.node.type === 'number');
    const target = pick(rng, numbers)?.node;
    if (target?.type !== 'number') return false;
    const lexeme = target.lexeme;
    const value = Number(lexeme);
    target.lexeme = pick(rng, [
      `${lexeme}0`.includes('.') ? `${lexeme}0` : `${lexeme}.0`,
      value.toExponential(),
      `${lexeme}e0`,
      `${lexeme}E+0`,
      String(value),
      `0${lexeme}`,
      `-${lexeme}`,
      `${lexeme}.`,
      '1e400',
      '-0',
    ]);
    return true;
  },
  roles(tree, rng) {
    const signatures = tree.type === 'object' ? tree.members.find(([name]) => name === 'signatures')?.[1] : undefined;
    if (signatures?.type !== 'object' || signatures.members.length < 2) return false;
    const members = signatures.members;
    const from = Math.floor(rng() * members.length);
    let to = Math.floor(rng() * members.length);
    if (to === from) to = (to + 1) % members.length;
    if (rng() < 0.5) {
      // copy one role's {key_id, sig_b64u} over another's
      (members[to] as [string, Node])[1] = clone((members[from] as [string, Node])[1]);
    } else {
      // permute: swap two roles' entries
      const a = (members[from] as [string, Node])[1];
      (members[from] as [string, Node])[1] = (members[to] as [string, Node])[1];
      (members[to] as [string, Node])[1] = a;
    }
    return true;
  },
  key(tree, rng, pool) {
    const strings = walk(tree).filter((entry) => entry.node.type === 'string' && entry.parent !== undefined);
    // Prefer key ids and long encoded values (keys, signatures, digests).
    const targets = strings.filter(
      (entry) => entry.node.type === 'string' && (entry.node.value.startsWith('did:') || entry.node.value.length >= 40),
    );
    const target = pick(rng, targets.length > 0 ? targets : strings);
    if (target === undefined || target.node.type !== 'string') return false;
    const current = target.node.value;
    const same = pool.strings.filter((value) => value !== current && value.length === current.length);
    const next = current.startsWith('did:') ? pick(rng, pool.keyIds) : pick(rng, same.length > 0 ? same : pool.strings);
    return replace(target.parent, target.key, { type: 'string', value: next ?? '' });
  },
  extreme(tree, rng) {
    const target = pick(
      rng,
      walk(tree).filter((entry) => entry.parent !== undefined),
    );
    if (target === undefined) return false;
    // Thunks: only the chosen extreme is built.
    const text = pick(rng, [
      () => JSON.stringify('A'.repeat(100_000 + Math.floor(rng() * 2_000_000))),
      () => nested(60 + Math.floor(rng() * 10), '1'),
      () => nested(63, '{}'),
      () => `[${Array.from({ length: 20_000 }, () => '0').join(',')}]`,
      () => '9'.repeat(400),
      () => `0.${'0'.repeat(400)}1`,
      () => '1e-400',
      () => JSON.stringify('\ud83d\ude00'.repeat(50_000)),
      () => `{${Array.from({ length: 5_000 }, (_, index) => `"m${index}":${index}`).join(',')}}`,
    ])();
    return replace(target.parent, target.key, { type: 'raw', text });
  },
};

/** Edits of the serialized text: bytes flipped, inserted, deleted; truncation; whitespace. */
function byteEdit(bytes: Uint8Array, rng: () => number): Uint8Array {
  const at = Math.floor(rng() * bytes.length);
  const out = Array.from(bytes);
  switch (Math.floor(rng() * 5)) {
    case 0:
      out[at] = (out[at] ?? 0) ^ (1 << Math.floor(rng() * 8));
      break;
    case 1:
      out.splice(at, 0, pick(rng, [0x00, 0xff, 0xc3, 0xed, 0x80, 0x20, 0x2c, 0x22, 0x5c, 0x7d]));
      break;
    case 2:
      out.splice(at, 1);
      break;
    case 3:
      out.length = at;
      break;
    default: {
      // whitespace after a structural character: a non-change
      const positions = out
        .map((byte, index) => (byte === 0x2c || byte === 0x3a ? index : -1))
        .filter((index) => index >= 0);
      if (positions.length > 0) out.splice((pick(rng, positions) as number) + 1, 0, 0x20, 0x0a, 0x09);
    }
  }
  return Uint8Array.from(out);
}

const OPERATIONS = [...Object.keys(MUTATIONS), 'bytes'];

/**
 * Mutation i of a run: a pure function of (seed, i).
 *
 * @returns The mutant's bytes, its base and the operations applied.
 */
function mutant(
  bases: readonly Base[],
  pool: Pool,
  seed: number,
  index: number,
): { base: Base; bytes: Uint8Array; operations: string[] } {
  const rng = random(seed, index);
  const base = pick(rng, bases);
  const tree = clone(base.tree);
  const operations: string[] = [];
  const rounds = 1 + Math.floor(rng() * rng() * 3);
  let bytes: Uint8Array | undefined;
  for (let round = 0; round < rounds; round += 1) {
    const operation = pick(rng, OPERATIONS);
    operations.push(operation);
    if (operation === 'bytes') {
      bytes = byteEdit(bytes ?? new TextEncoder().encode(write(tree)), rng);
    } else if (bytes === undefined) {
      (MUTATIONS[operation] as Mutation)(tree, rng, pool);
    }
  }
  return { base, bytes: bytes ?? new TextEncoder().encode(write(tree)), operations };
}

// --- oracle ---------------------------------------------------------------------------------

/** What a format says its signatures cover, as one comparable string. */
function signedKey(format: string, bytes: Uint8Array, crypto: CryptoProvider): string {
  const contents = signedContent(format, bytes, crypto);
  if (contents.length > 0) return `${format}|${contents.map((content) => content.sha256).join(',')}`;
  // Sealed documents sign nothing readable: the whole document stands for it.
  try {
    return `${format}|jcs:${jcsTree(parseJsonTree(new TextDecoder('utf-8', { fatal: true }).decode(bytes)))}`;
  } catch {
    return `${format}|unreadable`;
  }
}

function envelopeRoles(tree: Node): Record<string, string> | undefined {
  const signatures = tree.type === 'object' ? tree.members.find(([name]) => name === 'signatures')?.[1] : undefined;
  if (signatures?.type !== 'object') return undefined;
  const roles: Record<string, string> = {};
  for (const [role, entry] of signatures.members) {
    const keyId = entry.type === 'object' ? entry.members.find(([name]) => name === 'key_id')?.[1] : undefined;
    if (keyId?.type === 'string') roles[role] = keyId.value;
  }
  return roles;
}

function hasInternal(report: Report): boolean {
  return (
    report.errors.some((error) => error.code === 'internal') ||
    (report.inner !== undefined && hasInternal(report.inner))
  );
}

interface Setup {
  bases: Base[];
  pool: Pool;
  node: VerifyContext;
  portable: VerifyContext;
  advertised: VerifyContext;
}

function setup(): Setup {
  const set = buildSamples();
  const node = createNodeCryptoProvider();
  const now = new Date(SAMPLES_NOW);
  // Envelope keys are pinned for their own role, so misattributed roles show in trust.
  const roleOf = (entry: KeyEntry): SignerRole | undefined =>
    ENVELOPE_ROLES.find((role) => entry.label === `Sample key: envelope ${role}`);
  const pinned: KeyEntry[] = set.keys.map((entry) => {
    const role = roleOf(entry);
    return { ...entry, status: 'pinned', ...(role !== undefined ? { roles: [role] } : {}) };
  });
  const advertisedKeys: KeyEntry[] = set.keys.map(({ key_id, algorithm, public_key }) => ({
    key_id,
    algorithm,
    public_key,
  }));
  const contexts = {
    node: createVerifyContext(node, { pinned, secrets: set.secrets, now }),
    portable: createVerifyContext(createPortableProvider(), { pinned, secrets: set.secrets, now }),
    advertised: createVerifyContext(node, { advertised: advertisedKeys, secrets: set.secrets, now }),
  };
  const bases: Base[] = [];
  const strings = new Set<string>();
  for (const sample of set.files) {
    let tree: Node;
    try {
      tree = mutable(parseJsonTree(sample.text));
    } catch {
      continue; // a broken sample that strict parsing refuses on purpose
    }
    for (const entry of walk(tree))
      if (entry.node.type === 'string' && entry.node.value.length >= 16) strings.add(entry.node.value);
    if (sample.expected_status !== 'PASS') continue;
    const bytes = new TextEncoder().encode(sample.text);
    const report = verifyDocument(bytes, contexts.node);
    if (report.status !== 'PASS')
      throw new Error(`fuzz: the valid sample ${sample.file} is ${report.status}, not PASS`);
    bases.push({
      file: sample.file,
      format: report.format,
      text: sample.text,
      tree,
      signed: signedKey(report.format, bytes, node),
      roles: report.format === 'envelope/svc-receipt-v1' ? envelopeRoles(tree) : undefined,
    });
  }
  const keyIds = [...new Set(set.keys.map((entry) => entry.key_id))];
  return { bases, pool: { strings: [...strings].sort(), keyIds }, ...contexts };
}

function judge(setupData: Setup, index: number, base: Base, bytes: Uint8Array, findings: Finding[]): Report {
  const report = verifyDocument(bytes, setupData.node);
  const portable = verifyDocument(bytes, setupData.portable);
  const advertised = verifyDocument(bytes, setupData.advertised);
  if (hasInternal(report) || hasInternal(portable) || hasInternal(advertised)) {
    findings.push({
      index,
      kind: 'internal',
      detail: `${base.file}: ${[report, portable, advertised].flatMap((one) => one.errors).find((error) => error.code === 'internal')?.message ?? ''}`,
    });
  }
  const nodeText = JSON.stringify(report);
  const portableText = JSON.stringify(portable);
  if (nodeText !== portableText)
    findings.push({
      index,
      kind: 'differential',
      detail: `${base.file}: node ${report.status} vs portable ${portable.status}`,
    });
  if (advertised.status !== report.status)
    findings.push({
      index,
      kind: 'resolution',
      detail: `${base.file}: pinned ${report.status} vs given ${advertised.status}`,
    });
  if (report.status === 'PASS') {
    const signed = signedKey(report.format, bytes, setupData.node.crypto);
    if (signed !== base.signed)
      findings.push({
        index,
        kind: 'false_pass',
        detail: `${base.file}: PASS (${report.format}) over other signed content than the original's`,
      });
    if (report.format === 'envelope/svc-receipt-v1') {
      let tree: Node | undefined;
      try {
        tree = mutable(parseJsonTree(new TextDecoder().decode(bytes)));
      } catch {
        tree = undefined;
      }
      const roles = tree === undefined ? undefined : envelopeRoles(tree);
      const ids = Object.values(roles ?? {});
      if (new Set(ids).size !== ids.length)
        findings.push({ index, kind: 'roles', detail: `${base.file}: PASS with one key id in two roles` });
      if (report.trust.status === 'trusted' && JSON.stringify(roles) !== JSON.stringify(base.roles)) {
        findings.push({
          index,
          kind: 'roles',
          detail: `${base.file}: PASS trusted with roles ${JSON.stringify(roles)}`,
        });
      }
    }
  }
  return report;
}

/** Run mutations [from, to) of a seed in this process. */
function runRange(seed: number, from: number, to: number): Summary {
  const data = setup();
  const summary: Summary = { count: 0, statuses: {}, operations: {}, findings: [], findingCount: 0, pass: 0 };
  const parent = process.ppid;
  for (let index = from; index < to; index += 1) {
    // A worker whose parent is gone stops: its results would go nowhere (the loop never yields,
    // so no disconnect event could tell it).
    if ((index - from) % 1000 === 999 && process.send !== undefined && process.ppid !== parent) process.exit(3);
    const { base, bytes, operations } = mutant(data.bases, data.pool, seed, index);
    const findings: Finding[] = [];
    const report = judge(data, index, base, bytes, findings);
    summary.count += 1;
    summary.statuses[report.status] = (summary.statuses[report.status] ?? 0) + 1;
    if (report.status === 'PASS') summary.pass += 1;
    for (const operation of operations) summary.operations[operation] = (summary.operations[operation] ?? 0) + 1;
    summary.findingCount += findings.length;
    // Long runs say where they are (stderr, so a log of a background run shows progress).
    if ((index - from + 1) % 25_000 === 0)
      console.error(`fuzz: ${index - from + 1} of [${from}, ${to}) done, ${summary.findingCount} findings`);
    for (const finding of findings)
      console.error(`fuzz: FINDING ${finding.kind} at ${finding.index}: ${finding.detail}`);
    // Keep the first few of each run; the count says how many there were.
    if (summary.findings.length < 20) summary.findings.push(...findings.slice(0, 20 - summary.findings.length));
  }
  return summary;
}

function merge(into: Summary, from: Summary): void {
  into.count += from.count;
  into.pass += from.pass;
  into.findingCount += from.findingCount;
  for (const [name, count] of Object.entries(from.statuses)) into.statuses[name] = (into.statuses[name] ?? 0) + count;
  for (const [name, count] of Object.entries(from.operations))
    into.operations[name] = (into.operations[name] ?? 0) + count;
  into.findings.push(...from.findings);
}

/**
 * Which formats of the registry have valid samples to mutate (by module name, with how many),
 * and which have none.
 */
function coverage(): { fuzzed: [string, number][]; left: string[] } {
  const counts = new Map<string, number>();
  for (const sample of buildSamples().files) {
    if (sample.expected_status !== 'PASS') continue;
    const module = catalogueModules().find((candidate) => candidate.owns(sample.format));
    if (module === undefined) throw new Error(`fuzz: the valid sample ${sample.file} is of no registered format`);
    counts.set(module.name, (counts.get(module.name) ?? 0) + 1);
  }
  const names = catalogueModules().map((module) => module.name);
  return {
    fuzzed: names.filter((name) => counts.has(name)).map((name) => [name, counts.get(name) as number]),
    left: names.filter((name) => !counts.has(name)),
  };
}

// --- command line ---------------------------------------------------------------------------

interface Options {
  seed: number;
  count: number;
  workers: number;
  only: number | undefined;
  child: { from: number; to: number } | undefined;
}

function integer(value: string | undefined, name: string): number {
  if (value === undefined || !/^\d{1,10}$/.test(value)) throw new Error(`fuzz: ${name} needs a non-negative integer`);
  return Number(value);
}

function parseOptions(argv: readonly string[]): Options {
  const quick = argv.includes('--quick');
  const valueOf = (name: string): string | undefined => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const known = new Set(['--quick', '--seed', '--count', '--workers', '--only', '--child-from', '--child-to']);
  for (const [index, arg] of argv.entries()) {
    if (arg.startsWith('--') && !known.has(arg)) throw new Error(`fuzz: unknown option ${arg}`);
    if (!arg.startsWith('--') && !known.has(argv[index - 1] ?? '')) throw new Error(`fuzz: unexpected argument ${arg}`);
  }
  const seed =
    valueOf('--seed') !== undefined ? integer(valueOf('--seed'), '--seed') : Math.floor(Math.random() * 2 ** 31);
  const count = valueOf('--count') !== undefined ? integer(valueOf('--count'), '--count') : quick ? 10_000 : 1_000_000;
  const workers =
    valueOf('--workers') !== undefined
      ? Math.max(1, integer(valueOf('--workers'), '--workers'))
      : Math.max(1, Math.min(2, availableParallelism()));
  const only = valueOf('--only') !== undefined ? integer(valueOf('--only'), '--only') : undefined;
  const child =
    valueOf('--child-from') !== undefined
      ? { from: integer(valueOf('--child-from'), '--child-from'), to: integer(valueOf('--child-to'), '--child-to') }
      : undefined;
  return { seed, count, workers, only, child };
}

async function runWorkers(options: Options): Promise<Summary> {
  const script = fileURLToPath(import.meta.url);
  const per = Math.ceil(options.count / options.workers);
  const runs: Promise<Summary>[] = [];
  for (let worker = 0; worker < options.workers; worker += 1) {
    const from = worker * per;
    const to = Math.min(options.count, from + per);
    if (from >= to) continue;
    runs.push(
      new Promise<Summary>((resolve, reject) => {
        const child = fork(
          script,
          ['--seed', String(options.seed), '--child-from', String(from), '--child-to', String(to)],
          { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
        );
        let result: Summary | undefined;
        child.on('message', (message) => (result = message as Summary));
        child.on('error', reject);
        child.on('exit', (code) =>
          code === 0 && result !== undefined
            ? resolve(result)
            : reject(new Error(`fuzz: worker ${worker} exited with ${String(code)}`)),
        );
      }),
    );
  }
  const total: Summary = { count: 0, statuses: {}, operations: {}, findings: [], findingCount: 0, pass: 0 };
  for (const summary of await Promise.all(runs)) merge(total, summary);
  return total;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  if (options.child !== undefined) {
    process.send?.(runRange(options.seed, options.child.from, options.child.to));
    return 0;
  }
  console.log(`fuzz: seed ${options.seed}`);
  if (options.only === undefined) {
    const { fuzzed, left } = coverage();
    console.log(`formats: ${fuzzed.map(([name, count]) => `${name} (${count} valid)`).join(', ')}`);
    console.log(`formats without a valid sample, not fuzzed: ${left.length === 0 ? 'none' : left.join(', ')}`);
  }
  if (options.only !== undefined) {
    const data = setup();
    const { base, bytes, operations } = mutant(data.bases, data.pool, options.seed, options.only);
    const findings: Finding[] = [];
    const report = judge(data, options.only, base, bytes, findings);
    console.log(`mutation ${options.only}: ${base.file}, ${operations.join(' + ')}`);
    console.log(new TextDecoder().decode(bytes.subarray(0, 4000)));
    console.log(JSON.stringify(report, null, 2));
    for (const finding of findings) console.log(`FINDING ${finding.kind}: ${finding.detail}`);
    return findings.length === 0 ? 0 : 1;
  }
  const started = performance.now();
  const summary = await runWorkers(options);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `fuzz: ${summary.count} mutations in ${seconds.toFixed(1)} s (${Math.round(summary.count / seconds)}/s, ${options.workers} worker${options.workers === 1 ? '' : 's'})`,
  );
  console.log(
    `statuses: ${Object.entries(summary.statuses)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ')}`,
  );
  console.log(
    `operations: ${Object.entries(summary.operations)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ')}`,
  );
  const byKind = (kind: Finding['kind']) => summary.findings.filter((finding) => finding.kind === kind).length;
  console.log(
    `findings: ${summary.findingCount} (false PASS ${byKind('false_pass')}, internal ${byKind('internal')}, differential ${byKind('differential')}, resolution ${byKind('resolution')}, roles ${byKind('roles')} among the first kept)`,
  );
  for (const finding of summary.findings.slice(0, 20)) {
    console.log(
      `  ${finding.kind}: ${finding.detail}; replay: npx tsx bench/fuzz.ts --seed ${options.seed} --only ${finding.index}`,
    );
  }
  return summary.findingCount === 0 && summary.count === options.count ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 2;
  },
);
