import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { DomainError } from '../api/domain-error';
import { b64Decode, b64Encode, concatBytes, hexDecode, utf8Encode } from './encoding';
import { createPortableProvider } from './portable-provider';
import {
  NOTE_COSIGNATURE_ED25519,
  NOTE_ED25519,
  NOTE_MAX_SIGNATURES,
  NoteError,
  cosignatureMessage,
  formatCheckpoint,
  formatNote,
  formatVkey,
  noteKeyId,
  parseCheckpoint,
  parseNote,
  parseVkey,
  signCosignatureLine,
  signNoteLine,
  verifyNote,
} from './signed-note';
import type { NoteErrorCode } from './signed-note';

const crypto = createPortableProvider();
const { sha256 } = crypto;

interface GoNote {
  name: string;
  seed_hex: string;
  vkey: string;
  text: string;
  note: string;
  signature_line: string;
}
interface GoCosignature {
  log_name: string;
  log_seed_hex: string;
  log_vkey: string;
  witness_name: string;
  witness_seed_hex: string;
  witness_vkey: string;
  text: string;
  note: string;
  cosignature_line: string;
}
const go = JSON.parse(readFileSync(new URL('./testdata/tlog-go-vectors.json', import.meta.url), 'utf8')) as {
  notes: GoNote[];
  c2sp_example_verified_by_go: boolean;
  cosignatures: GoCosignature[];
};

// The published examples of c2sp.org/signed-note, tlog-checkpoint and tlog-cosignature, verbatim.
const C2SP_VKEY = 'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k';
const C2SP_NOTE =
  'This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n';
const QUASIMODO =
  'Ognuno sta solo sul cuor della terra\ntrafitto da un raggio di sole:\n\ned è subito sera.\n\n— quasimodo.example/salvatore NnugSzTjtVAewIS+Z/iJhUPeFDkO/5QQ2i5ddnGITLlC+EhfLW9oJKONrMouFSQU0xMcXxj99ihAQwaqP3ZekRwNtIc=\n';
const CHECKPOINT_TEXT = 'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';
const CHECKPOINT_LINE =
  '— example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=';
const COSIGNATURE_LINE =
  '— witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==';
const COSIGNED_NOTE = `${CHECKPOINT_TEXT}\n${CHECKPOINT_LINE}\n${COSIGNATURE_LINE}\n`;

function noteError(run: () => unknown): NoteError {
  try {
    run();
  } catch (error) {
    if (error instanceof NoteError) return error;
    throw error;
  }
  throw new Error('expected a NoteError');
}
function expectNoteError(run: () => unknown, code: NoteErrorCode, message: RegExp): void {
  const error = noteError(run);
  expect(error.code).toBe(code);
  expect(error.message).toMatch(message);
}

const seed = (text: string): Uint8Array => sha256(utf8Encode(text));

describe('signed notes (c2sp.org/signed-note)', () => {
  it("the published example: the vkey parses and verifies the example note (and Go's note.Open agrees)", () => {
    const key = parseVkey(sha256, C2SP_VKEY);
    expect(key).toMatchObject({ name: 'example.com/foo', type: NOTE_ED25519, keyId: 0x530d903a });
    expect(formatVkey(sha256, key.name, key.type, key.publicKey)).toBe(C2SP_VKEY);
    const note = parseNote(C2SP_NOTE);
    expect(note.text).toBe('This is an example message.\n');
    expect(note.signatures).toHaveLength(1);
    expect(note.signatures[0]).toMatchObject({ name: 'example.com/foo', keyId: 0x530d903a });
    expect(note.signatures[0]!.signature).toHaveLength(64);
    expect(verifyNote(crypto, note, [key])).toEqual([{ key, status: 'valid' }]);
    expect(formatNote(note.text, [note.signatures[0]!.line])).toBe(C2SP_NOTE);
    expect(go.c2sp_example_verified_by_go).toBe(true);
    // One changed character of the text, or of the signature, and it no longer verifies.
    const altered = parseNote(C2SP_NOTE.replace('example message', 'example massage'));
    expect(verifyNote(crypto, altered, [key])).toEqual([{ key, status: 'invalid' }]);
    const line = note.signatures[0]!;
    const flipped = line.signature.slice();
    flipped[10]! ^= 1;
    expect(
      verifyNote(crypto, { text: note.text, signatures: [{ ...line, signature: flipped }] }, [key])[0]!.status,
    ).toBe('invalid');
  });

  it('the introduction example parses: its text keeps its inner blank line', () => {
    const note = parseNote(QUASIMODO);
    expect(note.text).toBe(
      'Ognuno sta solo sul cuor della terra\ntrafitto da un raggio di sole:\n\ned è subito sera.\n',
    );
    expect(note.signatures.map(({ name }) => name)).toEqual(['quasimodo.example/salvatore']);
    expect(formatNote(note.text, [note.signatures[0]!.line])).toBe(QUASIMODO);
  });

  describe("Go's golang.org/x/mod/sumdb/note vectors (same seed and text, same bytes)", () => {
    it('holds notes for two keys and four texts', () => {
      expect(go.notes).toHaveLength(8);
    });
    for (const [index, vector] of go.notes.entries()) {
      it(`note ${index}: ${vector.name}, ${JSON.stringify(vector.text.slice(0, 24))}`, () => {
        const secret = hexDecode(vector.seed_hex);
        const publicKey = crypto.ed25519PublicKey(secret);
        expect(formatVkey(sha256, vector.name, NOTE_ED25519, publicKey)).toBe(vector.vkey);
        const key = parseVkey(sha256, vector.vkey);
        expect(key.publicKey).toEqual(publicKey);
        expect(key.keyId).toBe(noteKeyId(sha256, vector.name, NOTE_ED25519, publicKey));
        const line = signNoteLine(crypto, vector.text, vector.name, secret);
        expect(line).toBe(vector.signature_line);
        expect(formatNote(vector.text, [line])).toBe(vector.note);
        const note = parseNote(vector.note);
        expect(note.text).toBe(vector.text);
        expect(verifyNote(crypto, note, [key])).toEqual([{ key, status: 'valid' }]);
      });
    }
  });

  it('verification follows the C2SP key rules: name AND id select a key; unknown lines are ignored', () => {
    const [a, b] = [seed('key a'), seed('key b')];
    const text = 'a text\n';
    const keyA = parseVkey(sha256, formatVkey(sha256, 'example.com/a', NOTE_ED25519, crypto.ed25519PublicKey(a)));
    const keyB = parseVkey(sha256, formatVkey(sha256, 'example.com/b', NOTE_ED25519, crypto.ed25519PublicKey(b)));
    const lineA = signNoteLine(crypto, text, 'example.com/a', a);
    const lineB = signNoteLine(crypto, text, 'example.com/b', b);
    const note = parseNote(formatNote(text, [lineB, lineA]));
    expect(verifyNote(crypto, note, [keyA, keyB])).toEqual([
      { key: keyA, status: 'valid' },
      { key: keyB, status: 'valid' },
    ]);
    expect(verifyNote(crypto, note, [keyB])).toEqual([{ key: keyB, status: 'valid' }]);
    // Same name, another id; same id, another name: neither is that key's line.
    const otherId = { ...keyA, keyId: (keyA.keyId + 1) >>> 0 };
    const otherName = { ...keyA, name: 'example.com/a2' };
    expect(verifyNote(crypto, note, [otherId, otherName])).toEqual([]);
    // A key whose name and id match but whose public key does not: invalid.
    const impostor = { ...keyA, publicKey: keyB.publicKey };
    expect(verifyNote(crypto, note, [impostor])).toEqual([{ key: impostor, status: 'invalid' }]);
    // Two lines of one key, one bad: the key is invalid.
    const bad = lineA.replace(/.{6}=$/, 'AAAAAA=');
    const twice = parseNote(formatNote(text, [lineA, bad]));
    expect(verifyNote(crypto, twice, [keyA])).toEqual([{ key: keyA, status: 'invalid' }]);
    // A signature of the wrong length for the type is invalid, not an exception.
    const short = parseNote(
      formatNote(text, [`— example.com/a ${b64Encode(concatBytes(b64Decode(lineA.split(' ')[2]!).subarray(0, 40)))}`]),
    );
    expect(verifyNote(crypto, short, [keyA])).toEqual([{ key: keyA, status: 'invalid' }]);
  });

  it('parse errors name the line and the problem', () => {
    const sig = C2SP_NOTE.split('\n\n')[1]!;
    const cases: [string, NoteErrorCode, RegExp][] = [
      ['This is an example message.\n— example.com/foo AAAA\n', 'note_malformed', /no blank line separates/],
      ['text\n\n', 'note_malformed', /line 3: the note has no signature lines/],
      [C2SP_NOTE.slice(0, -1), 'note_malformed', /line 3: the last signature line does not end with a newline/],
      [`text\n\n- example.com/foo AAAAAAA=\n`, 'note_malformed', /line 3: a signature line must start with "— "/],
      [`text\n\n${sig}— example.com/foo\n`, 'note_malformed', /line 4: .*the space before the signature is missing/],
      [`text\n\n— example.com/foo \n`, 'note_malformed', /line 3: the signature of "example.com\/foo" is empty/],
      [
        `text\n\n— example.com/f+o AAAAAAA=\n`,
        'note_malformed',
        /line 3: the key name "example.com\/f\+o" contains a space or "\+"/,
      ],
      [`text\n\n—  AAAAAAA=\n`, 'note_malformed', /line 3: the key name is empty/],
      [`text\n\n— example.com/f\u00a0o AAAAAAA=\n`, 'note_malformed', /contains a space/],
      [`text\n\n— example.com/foo AAAAAAA\n`, 'note_malformed', /line 3: .*not standard padded base64 \(length 7/],
      [
        `text\n\n— example.com/foo AAAAAA==\n`,
        'note_malformed',
        /line 3: .*4 bytes, fewer than a key ID and a signature/,
      ],
      [`text\n\n— example.com/foo AAAAAAB=\n`, 'note_malformed', /non-canonical/],
      [`text\n\n— example.com/foo AAAAAAA= extra\n`, 'note_malformed', /line 3: .*not standard padded base64/],
      [`first\nsecond\u0007\n\n${sig}`, 'note_malformed', /line 2: control character U\+0007/],
      [`a\r\nb\n\n${sig}`, 'note_malformed', /line 1: control character U\+000d/],
      [`tab\there\n\n${sig}`, 'note_malformed', /line 1: control character U\+0009/],
      [`lone \ud800 surrogate\n\n${sig}`, 'note_malformed', /not valid UTF-8/],
      [`text\n\n${sig}\n`, 'note_malformed', /line 5: the note has no signature lines after the blank line/],
      [`text\n\n${sig.repeat(NOTE_MAX_SIGNATURES + 1)}`, 'note_too_large', /101 signature lines, more than 100/],
      [`${'x'.repeat(1_048_576)}\n\n${sig}`, 'note_too_large', /larger than 1048576 bytes/],
    ];
    for (const [input, code, message] of cases) {
      expectNoteError(() => parseNote(input), code, message);
    }
    // The limits themselves are accepted: 100 lines.
    expect(parseNote(`text\n\n${sig.repeat(NOTE_MAX_SIGNATURES)}`).signatures).toHaveLength(100);
    expect(noteError(() => parseNote('x'))).toBeInstanceOf(DomainError);
    expect(() => parseNote(42 as never)).toThrow(TypeError);
  });

  it('vkey errors say what is wrong', () => {
    const [name, id, key] = C2SP_VKEY.split('+') as [string, string, string];
    const cases: [string, RegExp][] = [
      ['example.com/foo', /expected <name>\+<key ID>\+<base64 key>/],
      [`example.com/foo+530d903a`, /expected <name>\+<key ID>\+<base64 key>/],
      [`+${id}+${key}`, /the key name is empty/],
      [`exa mple+${id}+${key}`, /contains a space/],
      [`${name}+530D903A+${key}`, /"530D903A" is not 8 lowercase hex digits/],
      [`${name}+530d903+${key}`, /not 8 lowercase hex digits/],
      [`${name}+${id}+${key.slice(0, -1)}`, /not standard padded base64/],
      [`${name}+${id}+`, /the key is empty/],
      [
        `${name}+${id}+${b64Encode(concatBytes(Uint8Array.of(2), b64Decode(key).subarray(1)))}`,
        /signature type 0x02 is not supported/,
      ],
      [`${name}+${id}+${b64Encode(b64Decode(key).subarray(0, 20))}`, /an Ed25519 key is 32 bytes, got 19/],
      [`${name}+530d903b+${key}`, /the key ID 530d903b does not match the name and key \(expected 530d903a\)/],
      [`example.com/bar+${id}+${key}`, /does not match/],
    ];
    for (const [input, message] of cases) expectNoteError(() => parseVkey(sha256, input), 'vkey_malformed', message);
  });

  it('formatNote and the signers refuse what a parser would refuse', () => {
    const secret = seed('formatter');
    expect(() => formatNote('no newline', ['— a AAAAAAA='])).toThrow(/must end with a newline/);
    expect(() => formatNote('text\n', [])).toThrow(/at least one signature line/);
    expect(() => formatNote('text\n', ['— a AAAAAAA=\n— b AAAAAAA='])).toThrow(RangeError);
    expect(() => formatNote('text\n', ['not a line'])).toThrow(/line 3: a signature line must start/);
    expect(() => signNoteLine(crypto, 'ctl\u0001\n', 'a', secret)).toThrow(/control character U\+0001/);
    expect(() => signNoteLine(crypto, 'text\n', 'a b', secret)).toThrow(/contains a space/);
    expect(() => signNoteLine(crypto, 'text\n', 'a', secret.subarray(1))).toThrow(RangeError);
    expect(() => signNoteLine({} as never, 'text\n', 'a', secret)).toThrow(TypeError);
    expect(() => formatVkey(sha256, 'a', 0x02, crypto.ed25519PublicKey(secret))).toThrow(/0x02 is not supported/);
    expect(() => noteKeyId(sha256, 'a', 256, new Uint8Array(32))).toThrow(/one byte/);
  });
});

describe('checkpoints (c2sp.org/tlog-checkpoint)', () => {
  it('the published example parses, and formatting it gives the same text byte for byte', () => {
    const note = parseNote(`${CHECKPOINT_TEXT}\n${CHECKPOINT_LINE}\n`);
    const checkpoint = parseCheckpoint(note.text);
    expect(checkpoint).toEqual({
      origin: 'example.com/behind-the-sofa',
      size: 20852163,
      rootHash: b64Decode('CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I='),
      extensions: [],
    });
    expect(formatCheckpoint(checkpoint)).toBe(CHECKPOINT_TEXT);
    expect(formatNote(formatCheckpoint(checkpoint), [CHECKPOINT_LINE])).toBe(
      `${CHECKPOINT_TEXT}\n${CHECKPOINT_LINE}\n`,
    );
    expect(note.signatures[0]).toMatchObject({ name: 'example.com/behind-the-sofa' });
    expect(note.signatures[0]!.signature).toHaveLength(64);
  });

  it('a checkpoint of ours: made, signed, parsed and verified (our log key name is not the origin)', () => {
    const secret = seed('log key');
    const origin = 'evroom.local/0123456789abcdef/tenants/acme';
    const rootHash = sha256(utf8Encode('a root'));
    const text = formatCheckpoint({ origin, size: 3, rootHash, extensions: [] });
    expect(text).toBe(`${origin}\n3\n${b64Encode(rootHash)}\n`);
    const note = formatNote(text, [signNoteLine(crypto, text, 'evroom.local/0123456789abcdef', secret)]);
    const key = parseVkey(
      sha256,
      formatVkey(sha256, 'evroom.local/0123456789abcdef', NOTE_ED25519, crypto.ed25519PublicKey(secret)),
    );
    const parsed = parseNote(note);
    expect(verifyNote(crypto, parsed, [key])).toEqual([{ key, status: 'valid' }]);
    expect(parseCheckpoint(parsed.text)).toEqual({ origin, size: 3, rootHash, extensions: [] });
    // Extension lines survive a round trip; the empty tree is size 0.
    const extended = { origin, size: 0, rootHash: sha256(new Uint8Array(0)), extensions: ['one', 'two words'] };
    expect(parseCheckpoint(formatCheckpoint(extended))).toEqual(extended);
    // The Go vector whose text is a checkpoint with an extension line parses too.
    expect(parseCheckpoint(go.notes[3]!.text)).toMatchObject({
      origin: 'example.com/log',
      size: 0,
      extensions: ['an extension line'],
    });
  });

  it('parse errors name the line and the problem', () => {
    const root = 'CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=';
    const cases: [string, RegExp][] = [
      ['origin\n5\n', /has 2 lines, not the three/],
      [`origin\n5\n${root}`, /must end with a newline/],
      [`\n5\n${root}\n`, /line 1: the origin is empty/],
      [`o\n05\n${root}\n`, /line 2: the tree size "05" is not a decimal number without leading zeroes/],
      [`o\n+5\n${root}\n`, /line 2: the tree size "\+5"/],
      [`o\n5 \n${root}\n`, /line 2/],
      [`o\n\n${root}\n`, /line 2: the tree size ""/],
      [`o\n9007199254740992\n${root}\n`, /line 2: the tree size 9007199254740992 is above 2\^53 - 1/],
      [`o\n5\n${root.slice(0, -1)}\n`, /line 3: the root hash is not standard padded base64/],
      [`o\n5\n${b64Encode(new Uint8Array(31))}\n`, /line 3: the root hash is 31 bytes, not 32/],
      [`o\n5\n${root}\n\n`, /line 4: an extension line is empty/],
      [`o\n5\n${root}\next\n\n`, /line 5: an extension line is empty/],
      [`o\n5\n${root}\u0000\n`, /line 3: control character U\+0000/],
    ];
    for (const [input, message] of cases)
      expectNoteError(() => parseCheckpoint(input), 'checkpoint_malformed', message);
    expect(parseCheckpoint(`o\n9007199254740991\n${root}\n`).size).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('formatCheckpoint checks its fields', () => {
    const rootHash = new Uint8Array(32);
    expect(() => formatCheckpoint({ origin: '', size: 1, rootHash, extensions: [] })).toThrow(/origin is empty/);
    expect(() => formatCheckpoint({ origin: 'a\nb', size: 1, rootHash, extensions: [] })).toThrow(
      /origin holds a newline/,
    );
    expect(() => formatCheckpoint({ origin: 'a', size: -1, rootHash, extensions: [] })).toThrow(RangeError);
    expect(() => formatCheckpoint({ origin: 'a', size: 1.5, rootHash, extensions: [] })).toThrow(RangeError);
    expect(() => formatCheckpoint({ origin: 'a', size: 1, rootHash: rootHash.subarray(1), extensions: [] })).toThrow(
      /32 bytes/,
    );
    expect(() => formatCheckpoint({ origin: 'a', size: 1, rootHash, extensions: [''] })).toThrow(
      /extensions\[0\] is empty/,
    );
    expect(() => formatCheckpoint({ origin: 'a\u0001', size: 1, rootHash, extensions: [] })).toThrow(
      /control character/,
    );
    expect(() => formatCheckpoint(null as never)).toThrow(TypeError);
  });
});

describe('cosignatures (c2sp.org/tlog-cosignature, Ed25519 type 0x04)', () => {
  it("the published example's structure parses: key ID, then the u64 timestamp 1679315147, then 64 bytes", () => {
    const note = parseNote(COSIGNED_NOTE);
    expect(note.text).toBe(CHECKPOINT_TEXT);
    expect(note.signatures.map(({ name }) => name)).toEqual(['example.com/behind-the-sofa', 'witness.example.com/w1']);
    const cosignature = note.signatures[1]!;
    expect(cosignature.line).toBe(COSIGNATURE_LINE);
    expect(cosignature.signature).toHaveLength(8 + 64);
    const timestamp = new DataView(cosignature.signature.buffer, cosignature.signature.byteOffset, 8).getBigUint64(0);
    expect(timestamp).toBe(1679315147n);
    expect(parseCheckpoint(note.text).size).toBe(20852163);
    expect(
      formatNote(
        note.text,
        note.signatures.map(({ line }) => line),
      ),
    ).toBe(COSIGNED_NOTE);
  });

  it("transparency-dev/formats' cosignatures (Go): same vkeys, they verify here, and we sign the same bytes", () => {
    expect(go.cosignatures).toHaveLength(2);
    for (const vector of go.cosignatures) {
      const [logSeed, witnessSeed] = [hexDecode(vector.log_seed_hex), hexDecode(vector.witness_seed_hex)];
      const witnessPublic = crypto.ed25519PublicKey(witnessSeed);
      expect(formatVkey(sha256, vector.witness_name, NOTE_COSIGNATURE_ED25519, witnessPublic)).toBe(
        vector.witness_vkey,
      );
      const logKey = parseVkey(sha256, vector.log_vkey);
      const witnessKey = parseVkey(sha256, vector.witness_vkey);
      const note = parseNote(vector.note);
      expect(note.text).toBe(vector.text);
      const line = note.signatures[1]!;
      expect(line.line).toBe(vector.cosignature_line);
      const timestamp = Number(new DataView(line.signature.buffer, line.signature.byteOffset, 8).getBigUint64(0));
      expect(verifyNote(crypto, note, [logKey, witnessKey])).toEqual([
        { key: logKey, status: 'valid' },
        { key: witnessKey, status: 'valid', timestamp },
      ]);
      // Ed25519 is deterministic: the same seed, text and timestamp give Go's lines exactly.
      const ours = signCosignatureLine(crypto, vector.text, vector.witness_name, witnessSeed, timestamp);
      expect(ours).toBe(vector.cosignature_line);
      const logLine = signNoteLine(crypto, vector.text, vector.log_name, logSeed);
      expect(formatNote(vector.text, [logLine, ours])).toBe(vector.note);
    }
  });

  it('the signed message is the one the specification shows', () => {
    expect(new TextDecoder().decode(cosignatureMessage(CHECKPOINT_TEXT, 1679315147))).toBe(
      'cosignature/v1\ntime 1679315147\nexample.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n',
    );
    expect(() => cosignatureMessage(CHECKPOINT_TEXT, -1)).toThrow(RangeError);
    expect(() => cosignatureMessage('no newline', 1)).toThrow(RangeError);
  });

  it('a cosignature of ours verifies under its 0x04 key with its timestamp; tampering fails', () => {
    const witness = seed('witness');
    const name = 'witness.example/w1';
    const publicKey = crypto.ed25519PublicKey(witness);
    const key = parseVkey(sha256, formatVkey(sha256, name, NOTE_COSIGNATURE_ED25519, publicKey));
    expect(key.type).toBe(NOTE_COSIGNATURE_ED25519);
    const line = signCosignatureLine(crypto, CHECKPOINT_TEXT, name, witness, 1_700_000_000);
    const note = parseNote(formatNote(CHECKPOINT_TEXT, [CHECKPOINT_LINE, line]));
    expect(note.signatures[1]!.keyId).toBe(noteKeyId(sha256, name, 0x04, publicKey));
    expect(note.signatures[1]!.signature.subarray(0, 8)).toEqual(hexDecode('000000006553f100'));
    expect(verifyNote(crypto, note, [key])).toEqual([{ key, status: 'valid', timestamp: 1_700_000_000 }]);
    // The signature is Ed25519 over the cosignature message, not over the bare text.
    const signature = note.signatures[1]!.signature.subarray(8);
    expect(crypto.ed25519Verify(signature, cosignatureMessage(CHECKPOINT_TEXT, 1_700_000_000), publicKey)).toBe(true);
    // Another timestamp in the line, or another text: invalid.
    const stamped = note.signatures[1]!.signature.slice();
    stamped[7]! ^= 1;
    const retimed = { text: note.text, signatures: [{ ...note.signatures[1]!, signature: stamped }] };
    expect(verifyNote(crypto, retimed, [key])).toEqual([{ key, status: 'invalid' }]);
    const otherText = CHECKPOINT_TEXT.replace('20852163', '20852164');
    expect(verifyNote(crypto, { text: otherText, signatures: note.signatures }, [key])).toEqual([
      { key, status: 'invalid' },
    ]);
    // A timestamp above 2^63 - 1 is invalid.
    const huge = note.signatures[1]!.signature.slice();
    huge[0] = 0x80;
    expect(
      verifyNote(crypto, { text: note.text, signatures: [{ ...note.signatures[1]!, signature: huge }] }, [key])[0]!
        .status,
    ).toBe('invalid');
    // The same public key as a type 0x01 key has another key ID, so the line is not its.
    const asNoteKey = parseVkey(sha256, formatVkey(sha256, name, NOTE_ED25519, publicKey));
    expect(asNoteKey.keyId).not.toBe(key.keyId);
    expect(verifyNote(crypto, note, [asNoteKey])).toEqual([]);
  });
});
