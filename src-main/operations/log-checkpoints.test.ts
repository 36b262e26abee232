import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { didKeyFromEd25519, hexEncode, utf8Encode } from '../../src-shared/crypto';
import {
  formatCheckpoint,
  formatNote,
  NOTE_ED25519,
  noteKeyId,
  signCosignatureLine,
  signNoteLine,
} from '../../src-shared/crypto/signed-note';
import { TlogMemory, tlogLeafHash } from '../../src-shared/crypto/tlog';
import { insertBundle, listConsistencyResults, listSeenCheckpoints, updateBundle } from '../ledger';
import type { LogCompleteness } from '../../src-shared/api/logs-contract';
import { makeTemporaryDirectory } from '../ledger/test-support';
import { OperationError } from './errors';
import {
  checkpointStanding,
  isLogKeyPinned,
  listLogs,
  logDetail,
  recordConsistencyProof,
  recordSeenCheckpoint,
  sizesToProve,
} from './log-checkpoints';
import { nodeCrypto, openWorkspace, type Workspace } from './workspace';

const crypto = nodeCrypto();
const sha256 = (data: Uint8Array): Uint8Array => crypto.sha256(data);
const KEY_NAME = 'evroom.test/0123456789abcdef';
const ORIGIN = `${KEY_NAME}/tenants/acme`;
const SEED = new Uint8Array(32).fill(7);
const PUBLIC = crypto.ed25519PublicKey(SEED);
const WITNESS_SEED = new Uint8Array(32).fill(9);
/** Someone else's key, advertised (say, in a forged bundle's keys file) under the log's key name. */
const FORGER_SEED = new Uint8Array(32).fill(11);
const FORGER = crypto.ed25519PublicKey(FORGER_SEED);

/** A log whose leaves are `leaf 0`, `leaf 1`, ...; `fork` changes the leaf at that index on. */
function makeLog(size: number, fork?: number): TlogMemory {
  const log = new TlogMemory(sha256);
  for (let index = 0; index < size; index += 1)
    log.append(
      tlogLeafHash(sha256, utf8Encode(fork !== undefined && index >= fork ? `fork ${index}` : `leaf ${index}`)),
    );
  return log;
}

function checkpointOf(log: TlogMemory, size: number, cosign = false, seed = SEED): { note: string; root: Uint8Array } {
  const root = log.root(size);
  const text = formatCheckpoint({ origin: ORIGIN, size, rootHash: root, extensions: [] });
  const lines = [signNoteLine(crypto, text, KEY_NAME, seed)];
  if (cosign) lines.push(signCosignatureLine(crypto, text, 'witness.example/w1', WITNESS_SEED, 1_760_000_000));
  return { note: formatNote(text, lines), root };
}

describe('the checkpoints a workstation has seen', () => {
  let workspace: Workspace;
  let cleanup: () => void;

  beforeEach(() => {
    const temporary = makeTemporaryDirectory('evroom-logs-');
    workspace = openWorkspace(path.join(temporary.directory, 'home'));
    cleanup = () => {
      workspace.close();
      temporary.cleanup();
    };
  });
  afterEach(() => cleanup());

  function record(
    log: TlogMemory,
    size: number,
    options: { from?: number[]; proofLog?: TlogMemory; source?: string; cosign?: boolean } = {},
  ) {
    const { note, root } = checkpointOf(log, size, options.cosign);
    const proofLog = options.proofLog ?? log;
    return recordSeenCheckpoint(workspace, {
      note,
      origin: ORIGIN,
      key_name: KEY_NAME,
      log_key: PUBLIC,
      size,
      root,
      source: options.source ?? 'api:http://127.0.0.1:1',
      ...(options.from === undefined
        ? {}
        : {
            consistency: options.from.map((from) => ({
              from_size: from,
              from_root: proofLog.root(from),
              proof: proofLog.consistencyProof(from, size),
            })),
          }),
    });
  }

  it('records each checkpoint once, with its note, cosignatures and first source', () => {
    const log = makeLog(10);
    expect(record(log, 3, { source: 'bundle:1' })).toEqual({ consistency: 'consistent', unchecked_sizes: [] });
    record(log, 3, { source: 'bundle:2', cosign: true });
    record(log, 3, { source: 'bundle:3' });
    const seen = listSeenCheckpoints(workspace.ledger.readable, ORIGIN);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ tree_size: 3, root: hexEncode(log.root(3)), source: 'bundle:1', cosignatures: 1 });
    expect(seen[0]?.note).toBe(checkpointOf(log, 3, true).note);

    const [view] = listLogs(workspace);
    expect(view).toMatchObject({
      origin: ORIGIN,
      key_name: KEY_NAME,
      checkpoints: 1,
      consistency: 'consistent',
      signer: 'unknown',
      bundles: 0,
      latest: { tree_size: 3, cosignatures: 1, source: 'bundle:1' },
    });
  });

  it('a chain of proofs is consistent, through every checkpoint (consistency is transitive)', () => {
    const log = makeLog(20);
    record(log, 3);
    expect(record(log, 7, { from: [3] })).toEqual({ consistency: 'consistent', unchecked_sizes: [] });
    // Only a proof from 7: 3 -> 7 -> 20 holds.
    expect(record(log, 20, { from: [7] })).toEqual({ consistency: 'consistent', unchecked_sizes: [] });
    const detail = logDetail(workspace, ORIGIN);
    expect(detail.consistency).toBe('consistent');
    expect(detail.history.map((item) => item.tree_size)).toEqual([20, 7, 3]);
    expect(detail.bundles_detail).toEqual([]);
    expect(listConsistencyResults(workspace.ledger.readable, ORIGIN).map((item) => item.result)).toEqual([
      'consistent',
      'consistent',
    ]);
  });

  it('a long history checked one step at a time stays consistent end to end', () => {
    const log = makeLog(201);
    record(log, 1);
    for (let size = 2; size <= 200; size += 1)
      expect(record(log, size, { from: [size - 1] }).consistency).toBe('consistent');
    // The newest, proved only from the one before, is consistent with the first through all of them.
    expect(record(log, 201, { from: [200] })).toEqual({ consistency: 'consistent', unchecked_sizes: [] });
    expect(listLogs(workspace)[0]).toMatchObject({ checkpoints: 201, consistency: 'consistent' });
  });

  it('asks for proofs only from sizes not already joined to the largest smaller one, and to every larger one', () => {
    const log = makeLog(12);
    record(log, 3);
    record(log, 5);
    expect(sizesToProve(workspace, ORIGIN, 7, PUBLIC)).toEqual([3, 5]);
    recordConsistencyProof(workspace, {
      origin: ORIGIN,
      log_key: PUBLIC,
      from_size: 3,
      to_size: 5,
      proof: log.consistencyProof(3, 5),
      source: 'bundle:1',
    });
    expect(sizesToProve(workspace, ORIGIN, 7, PUBLIC)).toEqual([5]);
    record(log, 9);
    expect(sizesToProve(workspace, ORIGIN, 7, PUBLIC)).toEqual([5, 9]);
    expect(sizesToProve(workspace, ORIGIN, 5, PUBLIC)).toEqual([3, 9]);
    // 9 was seen with no proof: every smaller size needs its own proof to 12, until 9 is joined.
    expect(sizesToProve(workspace, ORIGIN, 12, PUBLIC)).toEqual([3, 5, 9]);
    record(log, 9, { from: [5] });
    expect(sizesToProve(workspace, ORIGIN, 12, PUBLIC)).toEqual([9]);
  });

  it('a checkpoint with no proof to an earlier one is unchecked, until a proof comes', () => {
    const log = makeLog(12);
    record(log, 4);
    record(log, 6, { from: [4] });
    expect(record(log, 12)).toEqual({ consistency: 'unchecked', unchecked_sizes: [4, 6] });
    expect(listLogs(workspace)[0]?.consistency).toBe('unchecked');
    expect(
      recordConsistencyProof(workspace, {
        origin: ORIGIN,
        log_key: PUBLIC,
        from_size: 6,
        to_size: 12,
        proof: log.consistencyProof(6, 12),
        source: 'api:http://127.0.0.1:1',
      }),
    ).toEqual({ consistency: 'consistent', unchecked_sizes: [] });
    expect(listLogs(workspace)[0]?.consistency).toBe('consistent');
  });

  it('the same size with another root is a split view', () => {
    const log = makeLog(8);
    const forked = makeLog(8, 5);
    record(log, 8);
    const outcome = record(forked, 8, { source: 'bundle:9' });
    expect(outcome).toEqual({
      consistency: 'split_view',
      unchecked_sizes: [],
      split: { size: 8, root_hex: hexEncode(forked.root(8)), other_size: 8, other_root_hex: hexEncode(log.root(8)) },
    });
    // Both are kept: the evidence of the split.
    expect(listSeenCheckpoints(workspace.ledger.readable, ORIGIN)).toHaveLength(2);
    const [view] = listLogs(workspace);
    expect(view?.consistency).toBe('split_view');
    expect(view?.split).toMatchObject({ size: 8, other_size: 8 });
    expect(view?.keys).toBe(1);
  });

  it('a checkpoint signed by another key under the log key name is no split view of the log whose key is pinned', () => {
    workspace.trust.pin({ key_id: didKeyFromEd25519(PUBLIC), algorithm: 'Ed25519', public_key: PUBLIC });
    const log = makeLog(8);
    const forked = makeLog(8, 5);
    record(log, 8);
    // A forged bundle: the real origin and size, another root, signed as KEY_NAME by a key of its own.
    const forgedNote = checkpointOf(forked, 8, false, FORGER_SEED).note;
    const forged = {
      note: forgedNote,
      origin: ORIGIN,
      key_name: KEY_NAME,
      size: 8,
      root: forked.root(8),
      source: 'bundle:66',
    };
    // Recorded under the pinned key it would not verify: refused, nothing written.
    expect(() => recordSeenCheckpoint(workspace, { ...forged, log_key: PUBLIC })).toThrow(/does not verify/);
    expect(recordSeenCheckpoint(workspace, { ...forged, log_key: FORGER })).toEqual({
      consistency: 'consistent',
      unchecked_sizes: [],
    });
    expect(checkpointStanding(workspace, ORIGIN, 8, log.root(8), PUBLIC).consistency).toBe('consistent');
    const [view] = listLogs(workspace);
    expect(view).toMatchObject({
      origin: ORIGIN,
      consistency: 'consistent',
      keys: 2,
      checkpoints: 2,
      signer: 'pinned',
      latest: { tree_size: 8, root_hex: hexEncode(log.root(8)) },
    });
    expect(view?.split).toBeUndefined();
    // The history says which key verified each checkpoint: its note key id and how it is known.
    const keyIdOf = (publicKey: Uint8Array): string =>
      noteKeyId(crypto.sha256, KEY_NAME, NOTE_ED25519, publicKey).toString(16).padStart(8, '0');
    expect(keyIdOf(PUBLIC)).not.toBe(keyIdOf(FORGER));
    expect(
      logDetail(workspace, ORIGIN).history.map(({ root_hex, key_id, signer }) => ({ root_hex, key_id, signer })),
    ).toEqual(
      expect.arrayContaining([
        { root_hex: hexEncode(log.root(8)), key_id: keyIdOf(PUBLIC), signer: 'pinned' },
        { root_hex: hexEncode(forked.root(8)), key_id: keyIdOf(FORGER), signer: 'unknown' },
      ]),
    );
    expect(logDetail(workspace, ORIGIN).history).toHaveLength(2);
    expect(view?.latest).toMatchObject({ key_id: keyIdOf(PUBLIC), signer: 'pinned' });
    // Even two roots the forger's key signed at one size say nothing of the pinned key's log.
    recordSeenCheckpoint(workspace, {
      ...forged,
      note: checkpointOf(log, 8, false, FORGER_SEED).note,
      root: log.root(8),
      log_key: FORGER,
    });
    expect(listLogs(workspace)[0]).toMatchObject({ consistency: 'consistent', keys: 2, checkpoints: 3 });
    // The pinned key's own second root at that size is still a split view.
    const other = makeLog(8, 2);
    expect(record(other, 8).consistency).toBe('split_view');
    expect(listLogs(workspace)[0]).toMatchObject({ consistency: 'split_view', keys: 2 });
  });

  it('with no key pinned, a split view under any one key is reported, never one across keys', () => {
    const log = makeLog(8);
    record(log, 8);
    const forked = makeLog(8, 5);
    const forgedNote = checkpointOf(forked, 8, false, FORGER_SEED).note;
    const forged = { origin: ORIGIN, key_name: KEY_NAME, size: 8, log_key: FORGER, source: 'bundle:66' };
    recordSeenCheckpoint(workspace, { ...forged, note: forgedNote, root: forked.root(8) });
    expect(listLogs(workspace)[0]).toMatchObject({ consistency: 'consistent', keys: 2, signer: 'unknown' });
    // The same (unpinned) key signing a second root at one size is a split view of that key.
    recordSeenCheckpoint(workspace, {
      ...forged,
      note: checkpointOf(log, 8, false, FORGER_SEED).note,
      root: log.root(8),
    });
    expect(listLogs(workspace)[0]).toMatchObject({ consistency: 'split_view', keys: 2 });
  });

  it('a consistency proof that fails between two seen checkpoints is a split view', () => {
    const log = makeLog(10);
    const forked = makeLog(10, 2);
    record(log, 4);
    // A checkpoint of the fork with a proof from its own size 4: it does not hold for the seen 4.
    const outcome = record(forked, 10, { from: [4], proofLog: forked });
    expect(outcome.consistency).toBe('split_view');
    expect(outcome.split).toEqual({
      size: 10,
      root_hex: hexEncode(forked.root(10)),
      other_size: 4,
      other_root_hex: hexEncode(log.root(4)),
    });
    expect(listConsistencyResults(workspace.ledger.readable, ORIGIN)).toMatchObject([{ result: 'inconsistent' }]);
    // The log as a whole: a failed proof between two seen checkpoints of other sizes.
    expect(listLogs(workspace)[0]).toMatchObject({ consistency: 'split_view', split: { size: 10, other_size: 4 } });
    // A later proof that holds does not undo it.
    record(log, 10, { from: [4] });
    expect(listLogs(workspace)[0]?.consistency).toBe('split_view');
    expect(checkpointStanding(workspace, ORIGIN, 10, forked.root(10), PUBLIC).consistency).toBe('split_view');
  });

  it('a garbled proof is a split view too, and a proof from an unseen size changes nothing', () => {
    const log = makeLog(9);
    record(log, 5);
    const { note, root } = checkpointOf(log, 9);
    const proof = log.consistencyProof(5, 9);
    proof[0] = new Uint8Array(32);
    const outcome = recordSeenCheckpoint(workspace, {
      note,
      origin: ORIGIN,
      key_name: KEY_NAME,
      log_key: PUBLIC,
      size: 9,
      root,
      source: 'bundle:4',
      consistency: [
        { from_size: 5, from_root: log.root(5), proof },
        { from_size: 2, from_root: log.root(2), proof: log.consistencyProof(2, 9) },
      ],
    });
    expect(outcome.consistency).toBe('split_view');
  });

  it('refuses a note that is not the checkpoint named, and writes nothing', () => {
    const log = makeLog(5);
    const { note } = checkpointOf(log, 5);
    expect(() =>
      recordSeenCheckpoint(workspace, {
        note,
        origin: ORIGIN,
        key_name: KEY_NAME,
        log_key: PUBLIC,
        size: 5,
        root: log.root(4),
        source: 'bundle:1',
      }),
    ).toThrow(/not the checkpoint named/);
    expect(() =>
      recordSeenCheckpoint(workspace, {
        note,
        origin: ORIGIN,
        key_name: 'someone.else/key',
        log_key: PUBLIC,
        size: 5,
        root: log.root(5),
        source: 'bundle:1',
      }),
    ).toThrow(/no signature by someone.else/);
    expect(listLogs(workspace)).toEqual([]);
    expect(() => logDetail(workspace, ORIGIN)).toThrow(OperationError);
  });

  it('counts the imported bundles whose log evidence is from the log, and lists them in its detail', () => {
    const log = makeLog(6);
    record(log, 6);
    const completeness = (origin: string): LogCompleteness => ({
      status: 'complete',
      origin,
      key_name: KEY_NAME,
      tree_size: 6,
      root_hex: hexEncode(log.root(6)),
      signer: 'advertised',
      period: { since: null, until: null },
      first_index: 0,
      last_index: 5,
      missing: [],
      missing_count: 0,
      stale: false,
      consistency: 'consistent',
      sentence: 'complete for the whole log at size 6',
    });
    const bundle = (digit: string, origin: string | null): number => {
      const { id } = insertBundle(workspace.ledger.writable, {
        bundle_sha256: digit.repeat(64),
        file_name: `${digit}.zip`,
        manifest_json: '{}',
        signature: {},
      });
      if (origin !== null) updateBundle(workspace.ledger.writable, id, { log: completeness(origin) });
      return id;
    };
    const mine = bundle('1', ORIGIN);
    bundle('2', `${KEY_NAME}/tenants/other`);
    bundle('3', null);
    expect(listLogs(workspace)[0]?.bundles).toBe(1);
    expect(logDetail(workspace, ORIGIN).bundles_detail).toEqual([
      { bundle_id: mine, file_name: '1.zip', imported_at: expect.any(Number), log: completeness(ORIGIN) },
    ]);
  });

  it('the signer is pinned only for a log key pinned for the service role (or every role)', () => {
    const log = makeLog(3);
    record(log, 3);
    expect(listLogs(workspace)[0]?.signer).toBe('unknown');
    const keyId = didKeyFromEd25519(PUBLIC);
    workspace.trust.recordAdvertised([{ key_id: keyId, algorithm: 'Ed25519', public_key: PUBLIC }], 'api:test');
    expect(listLogs(workspace)[0]?.signer).toBe('advertised');
    workspace.trust.pin({ key_id: keyId, algorithm: 'Ed25519', public_key: PUBLIC, roles: ['requester'] });
    expect(isLogKeyPinned(workspace, PUBLIC)).toBe(false);
    expect(listLogs(workspace)[0]?.signer).toBe('advertised');
    workspace.trust.unpin(keyId);
    workspace.trust.pin({ key_id: keyId, algorithm: 'Ed25519', public_key: PUBLIC, roles: ['service'] });
    expect(isLogKeyPinned(workspace, PUBLIC)).toBe(true);
    expect(listLogs(workspace)[0]?.signer).toBe('pinned');
  });
});
