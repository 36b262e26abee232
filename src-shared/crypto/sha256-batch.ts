/**
 * SHA-256 of many small inputs in one call, in plain JavaScript (FIPS 180-4).
 *
 * A Merkle tree of n leaves needs 2n - 1 hashes of 33 or 65 bytes. Node's `crypto.hash` and the
 * browser's `crypto.subtle.digest` hash one input per call, and for inputs this small the call
 * costs more than the hash: measured here, `crypto.hash` gives about 0.7-1.4 million such hashes
 * a second, while the compression below, run in a loop over flat arrays with nothing allocated
 * per hash, gives about 3.7 million 33-byte and 2.4 million 65-byte hashes a second on one core
 * (bench/anchor.ts and bench/README.md). No WebAssembly SHA-256 is among the dependencies, so
 * this is plain JavaScript, and it runs unchanged in the browser.
 *
 * Tree nodes are handled as big-endian 32-bit words in an Int32Array (8 words per hash, the
 * form SHA-256 computes in), so a level of the tree is hashed from the words of the level below
 * without converting bytes. `sha256Words` and `sha256WordsToBytes` convert at the edges.
 */
import { assertBytes, assertIndex, describeType } from './assert';

/** FIPS 180-4 section 4.2.2: the round constants. */
const K = Int32Array.of(
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
);
/** FIPS 180-4 section 5.3.3: the initial hash value. */
const IV = Int32Array.of(
  0x6a09e667,
  0xbb67ae85,
  0x3c6ef372,
  0xa54ff53a,
  0x510e527f,
  0x9b05688c,
  0x1f83d9ab,
  0x5be0cd19,
);

/** The block being hashed (W[0..15]; W[16..63] for scheduling the table below); only used within a call. */
const W = new Int32Array(64);
/** W[t] + K[t]: what the rounds add. */
const WK = new Int32Array(64);
/** The state between the two blocks of a 65-byte input. */
const MIDDLE = new Int32Array(8);

/** Expands W[0..15] into the whole schedule and writes W[t] + K[t] into `target`. */
function schedule(target: Int32Array): void {
  for (let t = 16; t < 64; t += 1) {
    const w15 = W[t - 15] as number;
    const w2 = W[t - 2] as number;
    W[t] =
      ((((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10)) +
        (W[t - 7] as number) +
        (((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3)) +
        (W[t - 16] as number)) |
      0;
  }
  for (let t = 0; t < 64; t += 1) target[t] = ((W[t] as number) + (K[t] as number)) | 0;
}

/**
 * The 64 rounds of the compression function over `wk` (W + K) from `wkAt`, starting from the
 * state at `state[stateAt..+8]`; the new state is written to `out[outAt..+8]` (may be the same).
 * Eight rounds per pass with the variables renamed instead of shifted.
 */
function rounds(
  state: Int32Array,
  stateAt: number,
  wk: Int32Array,
  wkAt: number,
  out: Int32Array,
  outAt: number,
): void {
  let a = state[stateAt] as number;
  let b = state[stateAt + 1] as number;
  let c = state[stateAt + 2] as number;
  let d = state[stateAt + 3] as number;
  let e = state[stateAt + 4] as number;
  let f = state[stateAt + 5] as number;
  let g = state[stateAt + 6] as number;
  let h = state[stateAt + 7] as number;
  for (let t = wkAt, end = wkAt + 64; t < end; t += 8) {
    h =
      (h +
        (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
        (g ^ (e & (f ^ g))) +
        (wk[t] as number)) |
      0;
    d = (d + h) | 0;
    h =
      (h +
        (((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
        ((a & b) | (c & (a | b)))) |
      0;
    g =
      (g +
        (((d >>> 6) | (d << 26)) ^ ((d >>> 11) | (d << 21)) ^ ((d >>> 25) | (d << 7))) +
        (f ^ (d & (e ^ f))) +
        (wk[t + 1] as number)) |
      0;
    c = (c + g) | 0;
    g =
      (g +
        (((h >>> 2) | (h << 30)) ^ ((h >>> 13) | (h << 19)) ^ ((h >>> 22) | (h << 10))) +
        ((h & a) | (b & (h | a)))) |
      0;
    f =
      (f +
        (((c >>> 6) | (c << 26)) ^ ((c >>> 11) | (c << 21)) ^ ((c >>> 25) | (c << 7))) +
        (e ^ (c & (d ^ e))) +
        (wk[t + 2] as number)) |
      0;
    b = (b + f) | 0;
    f =
      (f +
        (((g >>> 2) | (g << 30)) ^ ((g >>> 13) | (g << 19)) ^ ((g >>> 22) | (g << 10))) +
        ((g & h) | (a & (g | h)))) |
      0;
    e =
      (e +
        (((b >>> 6) | (b << 26)) ^ ((b >>> 11) | (b << 21)) ^ ((b >>> 25) | (b << 7))) +
        (d ^ (b & (c ^ d))) +
        (wk[t + 3] as number)) |
      0;
    a = (a + e) | 0;
    e =
      (e +
        (((f >>> 2) | (f << 30)) ^ ((f >>> 13) | (f << 19)) ^ ((f >>> 22) | (f << 10))) +
        ((f & g) | (h & (f | g)))) |
      0;
    d =
      (d +
        (((a >>> 6) | (a << 26)) ^ ((a >>> 11) | (a << 21)) ^ ((a >>> 25) | (a << 7))) +
        (c ^ (a & (b ^ c))) +
        (wk[t + 4] as number)) |
      0;
    h = (h + d) | 0;
    d =
      (d +
        (((e >>> 2) | (e << 30)) ^ ((e >>> 13) | (e << 19)) ^ ((e >>> 22) | (e << 10))) +
        ((e & f) | (g & (e | f)))) |
      0;
    c =
      (c +
        (((h >>> 6) | (h << 26)) ^ ((h >>> 11) | (h << 21)) ^ ((h >>> 25) | (h << 7))) +
        (b ^ (h & (a ^ b))) +
        (wk[t + 5] as number)) |
      0;
    g = (g + c) | 0;
    c =
      (c +
        (((d >>> 2) | (d << 30)) ^ ((d >>> 13) | (d << 19)) ^ ((d >>> 22) | (d << 10))) +
        ((d & e) | (f & (d | e)))) |
      0;
    b =
      (b +
        (((g >>> 6) | (g << 26)) ^ ((g >>> 11) | (g << 21)) ^ ((g >>> 25) | (g << 7))) +
        (a ^ (g & (h ^ a))) +
        (wk[t + 6] as number)) |
      0;
    f = (f + b) | 0;
    b =
      (b +
        (((c >>> 2) | (c << 30)) ^ ((c >>> 13) | (c << 19)) ^ ((c >>> 22) | (c << 10))) +
        ((c & d) | (e & (c | d)))) |
      0;
    a =
      (a +
        (((f >>> 6) | (f << 26)) ^ ((f >>> 11) | (f << 21)) ^ ((f >>> 25) | (f << 7))) +
        (h ^ (f & (g ^ h))) +
        (wk[t + 7] as number)) |
      0;
    e = (e + a) | 0;
    a =
      (a +
        (((b >>> 2) | (b << 30)) ^ ((b >>> 13) | (b << 19)) ^ ((b >>> 22) | (b << 10))) +
        ((b & c) | (d & (b | c)))) |
      0;
  }
  out[outAt] = ((state[stateAt] as number) + a) | 0;
  out[outAt + 1] = ((state[stateAt + 1] as number) + b) | 0;
  out[outAt + 2] = ((state[stateAt + 2] as number) + c) | 0;
  out[outAt + 3] = ((state[stateAt + 3] as number) + d) | 0;
  out[outAt + 4] = ((state[stateAt + 4] as number) + e) | 0;
  out[outAt + 5] = ((state[stateAt + 5] as number) + f) | 0;
  out[outAt + 6] = ((state[stateAt + 6] as number) + g) | 0;
  out[outAt + 7] = ((state[stateAt + 7] as number) + h) | 0;
}

/**
 * The compression function over the block W[0..15] (`block`), from the state at
 * `state[stateAt..+8]` to `out[outAt..+8]` (may be the same). The schedule lives in sixteen
 * local variables and the rounds are written out sixteen at a time with the variables renamed
 * instead of shifted: about 1.4 times the speed of the loop over an array schedule (`rounds`)
 * in V8 (and the small sigmas must be written inline: as functions they are not inlined into
 * a function this large, which costs a quarter of the speed). Written out by a script; each
 * round is its schedule line (from round 16), then T1 into h, d += T1, then h += T2, as in
 * FIPS 180-4 section 6.2.2 with the variables renamed.
 */
function compress(state: Int32Array, stateAt: number, block: Int32Array, out: Int32Array, outAt: number): void {
  let w0 = block[0] as number;
  let w1 = block[1] as number;
  let w2 = block[2] as number;
  let w3 = block[3] as number;
  let w4 = block[4] as number;
  let w5 = block[5] as number;
  let w6 = block[6] as number;
  let w7 = block[7] as number;
  let w8 = block[8] as number;
  let w9 = block[9] as number;
  let w10 = block[10] as number;
  let w11 = block[11] as number;
  let w12 = block[12] as number;
  let w13 = block[13] as number;
  let w14 = block[14] as number;
  let w15 = block[15] as number;
  let a = state[stateAt] as number;
  let b = state[stateAt + 1] as number;
  let c = state[stateAt + 2] as number;
  let d = state[stateAt + 3] as number;
  let e = state[stateAt + 4] as number;
  let f = state[stateAt + 5] as number;
  let g = state[stateAt + 6] as number;
  let h = state[stateAt + 7] as number;
  {
    h =
      (h +
        (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
        (g ^ (e & (f ^ g))) +
        (K[0] as number) +
        w0) |
      0;
    d = (d + h) | 0;
    h =
      (h +
        (((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
        ((a & b) | (c & (a | b)))) |
      0;
    g =
      (g +
        (((d >>> 6) | (d << 26)) ^ ((d >>> 11) | (d << 21)) ^ ((d >>> 25) | (d << 7))) +
        (f ^ (d & (e ^ f))) +
        (K[1] as number) +
        w1) |
      0;
    c = (c + g) | 0;
    g =
      (g +
        (((h >>> 2) | (h << 30)) ^ ((h >>> 13) | (h << 19)) ^ ((h >>> 22) | (h << 10))) +
        ((h & a) | (b & (h | a)))) |
      0;
    f =
      (f +
        (((c >>> 6) | (c << 26)) ^ ((c >>> 11) | (c << 21)) ^ ((c >>> 25) | (c << 7))) +
        (e ^ (c & (d ^ e))) +
        (K[2] as number) +
        w2) |
      0;
    b = (b + f) | 0;
    f =
      (f +
        (((g >>> 2) | (g << 30)) ^ ((g >>> 13) | (g << 19)) ^ ((g >>> 22) | (g << 10))) +
        ((g & h) | (a & (g | h)))) |
      0;
    e =
      (e +
        (((b >>> 6) | (b << 26)) ^ ((b >>> 11) | (b << 21)) ^ ((b >>> 25) | (b << 7))) +
        (d ^ (b & (c ^ d))) +
        (K[3] as number) +
        w3) |
      0;
    a = (a + e) | 0;
    e =
      (e +
        (((f >>> 2) | (f << 30)) ^ ((f >>> 13) | (f << 19)) ^ ((f >>> 22) | (f << 10))) +
        ((f & g) | (h & (f | g)))) |
      0;
    d =
      (d +
        (((a >>> 6) | (a << 26)) ^ ((a >>> 11) | (a << 21)) ^ ((a >>> 25) | (a << 7))) +
        (c ^ (a & (b ^ c))) +
        (K[4] as number) +
        w4) |
      0;
    h = (h + d) | 0;
    d =
      (d +
        (((e >>> 2) | (e << 30)) ^ ((e >>> 13) | (e << 19)) ^ ((e >>> 22) | (e << 10))) +
        ((e & f) | (g & (e | f)))) |
      0;
    c =
      (c +
        (((h >>> 6) | (h << 26)) ^ ((h >>> 11) | (h << 21)) ^ ((h >>> 25) | (h << 7))) +
        (b ^ (h & (a ^ b))) +
        (K[5] as number) +
        w5) |
      0;
    g = (g + c) | 0;
    c =
      (c +
        (((d >>> 2) | (d << 30)) ^ ((d >>> 13) | (d << 19)) ^ ((d >>> 22) | (d << 10))) +
        ((d & e) | (f & (d | e)))) |
      0;
    b =
      (b +
        (((g >>> 6) | (g << 26)) ^ ((g >>> 11) | (g << 21)) ^ ((g >>> 25) | (g << 7))) +
        (a ^ (g & (h ^ a))) +
        (K[6] as number) +
        w6) |
      0;
    f = (f + b) | 0;
    b =
      (b +
        (((c >>> 2) | (c << 30)) ^ ((c >>> 13) | (c << 19)) ^ ((c >>> 22) | (c << 10))) +
        ((c & d) | (e & (c | d)))) |
      0;
    a =
      (a +
        (((f >>> 6) | (f << 26)) ^ ((f >>> 11) | (f << 21)) ^ ((f >>> 25) | (f << 7))) +
        (h ^ (f & (g ^ h))) +
        (K[7] as number) +
        w7) |
      0;
    e = (e + a) | 0;
    a =
      (a +
        (((b >>> 2) | (b << 30)) ^ ((b >>> 13) | (b << 19)) ^ ((b >>> 22) | (b << 10))) +
        ((b & c) | (d & (b | c)))) |
      0;
    h =
      (h +
        (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
        (g ^ (e & (f ^ g))) +
        (K[8] as number) +
        w8) |
      0;
    d = (d + h) | 0;
    h =
      (h +
        (((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
        ((a & b) | (c & (a | b)))) |
      0;
    g =
      (g +
        (((d >>> 6) | (d << 26)) ^ ((d >>> 11) | (d << 21)) ^ ((d >>> 25) | (d << 7))) +
        (f ^ (d & (e ^ f))) +
        (K[9] as number) +
        w9) |
      0;
    c = (c + g) | 0;
    g =
      (g +
        (((h >>> 2) | (h << 30)) ^ ((h >>> 13) | (h << 19)) ^ ((h >>> 22) | (h << 10))) +
        ((h & a) | (b & (h | a)))) |
      0;
    f =
      (f +
        (((c >>> 6) | (c << 26)) ^ ((c >>> 11) | (c << 21)) ^ ((c >>> 25) | (c << 7))) +
        (e ^ (c & (d ^ e))) +
        (K[10] as number) +
        w10) |
      0;
    b = (b + f) | 0;
    f =
      (f +
        (((g >>> 2) | (g << 30)) ^ ((g >>> 13) | (g << 19)) ^ ((g >>> 22) | (g << 10))) +
        ((g & h) | (a & (g | h)))) |
      0;
    e =
      (e +
        (((b >>> 6) | (b << 26)) ^ ((b >>> 11) | (b << 21)) ^ ((b >>> 25) | (b << 7))) +
        (d ^ (b & (c ^ d))) +
        (K[11] as number) +
        w11) |
      0;
    a = (a + e) | 0;
    e =
      (e +
        (((f >>> 2) | (f << 30)) ^ ((f >>> 13) | (f << 19)) ^ ((f >>> 22) | (f << 10))) +
        ((f & g) | (h & (f | g)))) |
      0;
    d =
      (d +
        (((a >>> 6) | (a << 26)) ^ ((a >>> 11) | (a << 21)) ^ ((a >>> 25) | (a << 7))) +
        (c ^ (a & (b ^ c))) +
        (K[12] as number) +
        w12) |
      0;
    h = (h + d) | 0;
    d =
      (d +
        (((e >>> 2) | (e << 30)) ^ ((e >>> 13) | (e << 19)) ^ ((e >>> 22) | (e << 10))) +
        ((e & f) | (g & (e | f)))) |
      0;
    c =
      (c +
        (((h >>> 6) | (h << 26)) ^ ((h >>> 11) | (h << 21)) ^ ((h >>> 25) | (h << 7))) +
        (b ^ (h & (a ^ b))) +
        (K[13] as number) +
        w13) |
      0;
    g = (g + c) | 0;
    c =
      (c +
        (((d >>> 2) | (d << 30)) ^ ((d >>> 13) | (d << 19)) ^ ((d >>> 22) | (d << 10))) +
        ((d & e) | (f & (d | e)))) |
      0;
    b =
      (b +
        (((g >>> 6) | (g << 26)) ^ ((g >>> 11) | (g << 21)) ^ ((g >>> 25) | (g << 7))) +
        (a ^ (g & (h ^ a))) +
        (K[14] as number) +
        w14) |
      0;
    f = (f + b) | 0;
    b =
      (b +
        (((c >>> 2) | (c << 30)) ^ ((c >>> 13) | (c << 19)) ^ ((c >>> 22) | (c << 10))) +
        ((c & d) | (e & (c | d)))) |
      0;
    a =
      (a +
        (((f >>> 6) | (f << 26)) ^ ((f >>> 11) | (f << 21)) ^ ((f >>> 25) | (f << 7))) +
        (h ^ (f & (g ^ h))) +
        (K[15] as number) +
        w15) |
      0;
    e = (e + a) | 0;
    a =
      (a +
        (((b >>> 2) | (b << 30)) ^ ((b >>> 13) | (b << 19)) ^ ((b >>> 22) | (b << 10))) +
        ((b & c) | (d & (b | c)))) |
      0;
  }
  for (let t = 16; t < 64; t += 16) {
    w0 =
      ((((w14 >>> 17) | (w14 << 15)) ^ ((w14 >>> 19) | (w14 << 13)) ^ (w14 >>> 10)) +
        w9 +
        (((w1 >>> 7) | (w1 << 25)) ^ ((w1 >>> 18) | (w1 << 14)) ^ (w1 >>> 3)) +
        w0) |
      0;
    h =
      (h +
        (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
        (g ^ (e & (f ^ g))) +
        (K[t + 0] as number) +
        w0) |
      0;
    d = (d + h) | 0;
    h =
      (h +
        (((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
        ((a & b) | (c & (a | b)))) |
      0;
    w1 =
      ((((w15 >>> 17) | (w15 << 15)) ^ ((w15 >>> 19) | (w15 << 13)) ^ (w15 >>> 10)) +
        w10 +
        (((w2 >>> 7) | (w2 << 25)) ^ ((w2 >>> 18) | (w2 << 14)) ^ (w2 >>> 3)) +
        w1) |
      0;
    g =
      (g +
        (((d >>> 6) | (d << 26)) ^ ((d >>> 11) | (d << 21)) ^ ((d >>> 25) | (d << 7))) +
        (f ^ (d & (e ^ f))) +
        (K[t + 1] as number) +
        w1) |
      0;
    c = (c + g) | 0;
    g =
      (g +
        (((h >>> 2) | (h << 30)) ^ ((h >>> 13) | (h << 19)) ^ ((h >>> 22) | (h << 10))) +
        ((h & a) | (b & (h | a)))) |
      0;
    w2 =
      ((((w0 >>> 17) | (w0 << 15)) ^ ((w0 >>> 19) | (w0 << 13)) ^ (w0 >>> 10)) +
        w11 +
        (((w3 >>> 7) | (w3 << 25)) ^ ((w3 >>> 18) | (w3 << 14)) ^ (w3 >>> 3)) +
        w2) |
      0;
    f =
      (f +
        (((c >>> 6) | (c << 26)) ^ ((c >>> 11) | (c << 21)) ^ ((c >>> 25) | (c << 7))) +
        (e ^ (c & (d ^ e))) +
        (K[t + 2] as number) +
        w2) |
      0;
    b = (b + f) | 0;
    f =
      (f +
        (((g >>> 2) | (g << 30)) ^ ((g >>> 13) | (g << 19)) ^ ((g >>> 22) | (g << 10))) +
        ((g & h) | (a & (g | h)))) |
      0;
    w3 =
      ((((w1 >>> 17) | (w1 << 15)) ^ ((w1 >>> 19) | (w1 << 13)) ^ (w1 >>> 10)) +
        w12 +
        (((w4 >>> 7) | (w4 << 25)) ^ ((w4 >>> 18) | (w4 << 14)) ^ (w4 >>> 3)) +
        w3) |
      0;
    e =
      (e +
        (((b >>> 6) | (b << 26)) ^ ((b >>> 11) | (b << 21)) ^ ((b >>> 25) | (b << 7))) +
        (d ^ (b & (c ^ d))) +
        (K[t + 3] as number) +
        w3) |
      0;
    a = (a + e) | 0;
    e =
      (e +
        (((f >>> 2) | (f << 30)) ^ ((f >>> 13) | (f << 19)) ^ ((f >>> 22) | (f << 10))) +
        ((f & g) | (h & (f | g)))) |
      0;
    w4 =
      ((((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10)) +
        w13 +
        (((w5 >>> 7) | (w5 << 25)) ^ ((w5 >>> 18) | (w5 << 14)) ^ (w5 >>> 3)) +
        w4) |
      0;
    d =
      (d +
        (((a >>> 6) | (a << 26)) ^ ((a >>> 11) | (a << 21)) ^ ((a >>> 25) | (a << 7))) +
        (c ^ (a & (b ^ c))) +
        (K[t + 4] as number) +
        w4) |
      0;
    h = (h + d) | 0;
    d =
      (d +
        (((e >>> 2) | (e << 30)) ^ ((e >>> 13) | (e << 19)) ^ ((e >>> 22) | (e << 10))) +
        ((e & f) | (g & (e | f)))) |
      0;
    w5 =
      ((((w3 >>> 17) | (w3 << 15)) ^ ((w3 >>> 19) | (w3 << 13)) ^ (w3 >>> 10)) +
        w14 +
        (((w6 >>> 7) | (w6 << 25)) ^ ((w6 >>> 18) | (w6 << 14)) ^ (w6 >>> 3)) +
        w5) |
      0;
    c =
      (c +
        (((h >>> 6) | (h << 26)) ^ ((h >>> 11) | (h << 21)) ^ ((h >>> 25) | (h << 7))) +
        (b ^ (h & (a ^ b))) +
        (K[t + 5] as number) +
        w5) |
      0;
    g = (g + c) | 0;
    c =
      (c +
        (((d >>> 2) | (d << 30)) ^ ((d >>> 13) | (d << 19)) ^ ((d >>> 22) | (d << 10))) +
        ((d & e) | (f & (d | e)))) |
      0;
    w6 =
      ((((w4 >>> 17) | (w4 << 15)) ^ ((w4 >>> 19) | (w4 << 13)) ^ (w4 >>> 10)) +
        w15 +
        (((w7 >>> 7) | (w7 << 25)) ^ ((w7 >>> 18) | (w7 << 14)) ^ (w7 >>> 3)) +
        w6) |
      0;
    b =
      (b +
        (((g >>> 6) | (g << 26)) ^ ((g >>> 11) | (g << 21)) ^ ((g >>> 25) | (g << 7))) +
        (a ^ (g & (h ^ a))) +
        (K[t + 6] as number) +
        w6) |
      0;
    f = (f + b) | 0;
    b =
      (b +
        (((c >>> 2) | (c << 30)) ^ ((c >>> 13) | (c << 19)) ^ ((c >>> 22) | (c << 10))) +
        ((c & d) | (e & (c | d)))) |
      0;
    w7 =
      ((((w5 >>> 17) | (w5 << 15)) ^ ((w5 >>> 19) | (w5 << 13)) ^ (w5 >>> 10)) +
        w0 +
        (((w8 >>> 7) | (w8 << 25)) ^ ((w8 >>> 18) | (w8 << 14)) ^ (w8 >>> 3)) +
        w7) |
      0;
    a =
      (a +
        (((f >>> 6) | (f << 26)) ^ ((f >>> 11) | (f << 21)) ^ ((f >>> 25) | (f << 7))) +
        (h ^ (f & (g ^ h))) +
        (K[t + 7] as number) +
        w7) |
      0;
    e = (e + a) | 0;
    a =
      (a +
        (((b >>> 2) | (b << 30)) ^ ((b >>> 13) | (b << 19)) ^ ((b >>> 22) | (b << 10))) +
        ((b & c) | (d & (b | c)))) |
      0;
    w8 =
      ((((w6 >>> 17) | (w6 << 15)) ^ ((w6 >>> 19) | (w6 << 13)) ^ (w6 >>> 10)) +
        w1 +
        (((w9 >>> 7) | (w9 << 25)) ^ ((w9 >>> 18) | (w9 << 14)) ^ (w9 >>> 3)) +
        w8) |
      0;
    h =
      (h +
        (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
        (g ^ (e & (f ^ g))) +
        (K[t + 8] as number) +
        w8) |
      0;
    d = (d + h) | 0;
    h =
      (h +
        (((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
        ((a & b) | (c & (a | b)))) |
      0;
    w9 =
      ((((w7 >>> 17) | (w7 << 15)) ^ ((w7 >>> 19) | (w7 << 13)) ^ (w7 >>> 10)) +
        w2 +
        (((w10 >>> 7) | (w10 << 25)) ^ ((w10 >>> 18) | (w10 << 14)) ^ (w10 >>> 3)) +
        w9) |
      0;
    g =
      (g +
        (((d >>> 6) | (d << 26)) ^ ((d >>> 11) | (d << 21)) ^ ((d >>> 25) | (d << 7))) +
        (f ^ (d & (e ^ f))) +
        (K[t + 9] as number) +
        w9) |
      0;
    c = (c + g) | 0;
    g =
      (g +
        (((h >>> 2) | (h << 30)) ^ ((h >>> 13) | (h << 19)) ^ ((h >>> 22) | (h << 10))) +
        ((h & a) | (b & (h | a)))) |
      0;
    w10 =
      ((((w8 >>> 17) | (w8 << 15)) ^ ((w8 >>> 19) | (w8 << 13)) ^ (w8 >>> 10)) +
        w3 +
        (((w11 >>> 7) | (w11 << 25)) ^ ((w11 >>> 18) | (w11 << 14)) ^ (w11 >>> 3)) +
        w10) |
      0;
    f =
      (f +
        (((c >>> 6) | (c << 26)) ^ ((c >>> 11) | (c << 21)) ^ ((c >>> 25) | (c << 7))) +
        (e ^ (c & (d ^ e))) +
        (K[t + 10] as number) +
        w10) |
      0;
    b = (b + f) | 0;
    f =
      (f +
        (((g >>> 2) | (g << 30)) ^ ((g >>> 13) | (g << 19)) ^ ((g >>> 22) | (g << 10))) +
        ((g & h) | (a & (g | h)))) |
      0;
    w11 =
      ((((w9 >>> 17) | (w9 << 15)) ^ ((w9 >>> 19) | (w9 << 13)) ^ (w9 >>> 10)) +
        w4 +
        (((w12 >>> 7) | (w12 << 25)) ^ ((w12 >>> 18) | (w12 << 14)) ^ (w12 >>> 3)) +
        w11) |
      0;
    e =
      (e +
        (((b >>> 6) | (b << 26)) ^ ((b >>> 11) | (b << 21)) ^ ((b >>> 25) | (b << 7))) +
        (d ^ (b & (c ^ d))) +
        (K[t + 11] as number) +
        w11) |
      0;
    a = (a + e) | 0;
    e =
      (e +
        (((f >>> 2) | (f << 30)) ^ ((f >>> 13) | (f << 19)) ^ ((f >>> 22) | (f << 10))) +
        ((f & g) | (h & (f | g)))) |
      0;
    w12 =
      ((((w10 >>> 17) | (w10 << 15)) ^ ((w10 >>> 19) | (w10 << 13)) ^ (w10 >>> 10)) +
        w5 +
        (((w13 >>> 7) | (w13 << 25)) ^ ((w13 >>> 18) | (w13 << 14)) ^ (w13 >>> 3)) +
        w12) |
      0;
    d =
      (d +
        (((a >>> 6) | (a << 26)) ^ ((a >>> 11) | (a << 21)) ^ ((a >>> 25) | (a << 7))) +
        (c ^ (a & (b ^ c))) +
        (K[t + 12] as number) +
        w12) |
      0;
    h = (h + d) | 0;
    d =
      (d +
        (((e >>> 2) | (e << 30)) ^ ((e >>> 13) | (e << 19)) ^ ((e >>> 22) | (e << 10))) +
        ((e & f) | (g & (e | f)))) |
      0;
    w13 =
      ((((w11 >>> 17) | (w11 << 15)) ^ ((w11 >>> 19) | (w11 << 13)) ^ (w11 >>> 10)) +
        w6 +
        (((w14 >>> 7) | (w14 << 25)) ^ ((w14 >>> 18) | (w14 << 14)) ^ (w14 >>> 3)) +
        w13) |
      0;
    c =
      (c +
        (((h >>> 6) | (h << 26)) ^ ((h >>> 11) | (h << 21)) ^ ((h >>> 25) | (h << 7))) +
        (b ^ (h & (a ^ b))) +
        (K[t + 13] as number) +
        w13) |
      0;
    g = (g + c) | 0;
    c =
      (c +
        (((d >>> 2) | (d << 30)) ^ ((d >>> 13) | (d << 19)) ^ ((d >>> 22) | (d << 10))) +
        ((d & e) | (f & (d | e)))) |
      0;
    w14 =
      ((((w12 >>> 17) | (w12 << 15)) ^ ((w12 >>> 19) | (w12 << 13)) ^ (w12 >>> 10)) +
        w7 +
        (((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3)) +
        w14) |
      0;
    b =
      (b +
        (((g >>> 6) | (g << 26)) ^ ((g >>> 11) | (g << 21)) ^ ((g >>> 25) | (g << 7))) +
        (a ^ (g & (h ^ a))) +
        (K[t + 14] as number) +
        w14) |
      0;
    f = (f + b) | 0;
    b =
      (b +
        (((c >>> 2) | (c << 30)) ^ ((c >>> 13) | (c << 19)) ^ ((c >>> 22) | (c << 10))) +
        ((c & d) | (e & (c | d)))) |
      0;
    w15 =
      ((((w13 >>> 17) | (w13 << 15)) ^ ((w13 >>> 19) | (w13 << 13)) ^ (w13 >>> 10)) +
        w8 +
        (((w0 >>> 7) | (w0 << 25)) ^ ((w0 >>> 18) | (w0 << 14)) ^ (w0 >>> 3)) +
        w15) |
      0;
    a =
      (a +
        (((f >>> 6) | (f << 26)) ^ ((f >>> 11) | (f << 21)) ^ ((f >>> 25) | (f << 7))) +
        (h ^ (f & (g ^ h))) +
        (K[t + 15] as number) +
        w15) |
      0;
    e = (e + a) | 0;
    a =
      (a +
        (((b >>> 2) | (b << 30)) ^ ((b >>> 13) | (b << 19)) ^ ((b >>> 22) | (b << 10))) +
        ((b & c) | (d & (b | c)))) |
      0;
  }
  out[outAt] = ((state[stateAt] as number) + a) | 0;
  out[outAt + 1] = ((state[stateAt + 1] as number) + b) | 0;
  out[outAt + 2] = ((state[stateAt + 2] as number) + c) | 0;
  out[outAt + 3] = ((state[stateAt + 3] as number) + d) | 0;
  out[outAt + 4] = ((state[stateAt + 4] as number) + e) | 0;
  out[outAt + 5] = ((state[stateAt + 5] as number) + f) | 0;
  out[outAt + 6] = ((state[stateAt + 6] as number) + g) | 0;
  out[outAt + 7] = ((state[stateAt + 7] as number) + h) | 0;
}

/**
 * W + K of the second block of every 65-byte input, by its last byte x: the block is
 * x || 0x80 || zeros || the length (520 bits), so there are only 256 of them, scheduled once.
 */
const TAIL_65 = new Int32Array(256 * 64);
for (let last = 0; last < 256; last += 1) {
  W.fill(0);
  W[0] = (last << 24) | 0x800000;
  W[15] = 65 * 8;
  schedule(WK);
  TAIL_65.set(WK, last * 64);
}

function assertWords(value: unknown, name: string): asserts value is Int32Array {
  if (!(value instanceof Int32Array)) throw new TypeError(`${name} must be an Int32Array, got ${describeType(value)}`);
}

function assertByte(value: unknown, name: string): asserts value is number {
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 255)
    throw new RangeError(`${name} must be a byte (0 to 255), got ${String(value)}`);
}

/**
 * Hashes `prefix || item` for each 32-byte item of `input` (a 33-byte input, one block each).
 *
 * Items and results are 8 big-endian words each: item `i` is `input[8i..8i+8]`, its hash goes
 * to `output[8i..8i+8]`. `output` may be `input` (each item is read before it is written).
 *
 * @param prefix - the byte before each item (0x00 for a Merkle leaf)
 * @param input - `8 * count` words or more
 * @param count - how many items
 * @param output - room for `8 * count` words
 * @throws TypeError when `input` or `output` is not an Int32Array
 * @throws RangeError when `prefix` is not a byte, or an array is too short for `count`
 */
export function sha256Prefix32Words(prefix: number, input: Int32Array, count: number, output: Int32Array): void {
  assertByte(prefix, 'sha256Prefix32Words: prefix');
  assertWords(input, 'sha256Prefix32Words: input');
  assertWords(output, 'sha256Prefix32Words: output');
  assertIndex(count, 'sha256Prefix32Words: count');
  if (input.length < 8 * count || output.length < 8 * count)
    throw new RangeError(`sha256Prefix32Words: input and output need ${8 * count} words for ${count} items`);
  const high = prefix << 24;
  for (let item = 0; item < count; item += 1) {
    const at = 8 * item;
    let word = input[at] as number;
    W[0] = high | (word >>> 8);
    for (let t = 1; t < 8; t += 1) {
      const next = input[at + t] as number;
      W[t] = (word << 24) | (next >>> 8);
      word = next;
    }
    W[8] = (word << 24) | 0x800000;
    W[9] = 0;
    W[10] = 0;
    W[11] = 0;
    W[12] = 0;
    W[13] = 0;
    W[14] = 0;
    W[15] = 33 * 8;
    compress(IV, 0, W, output, at);
  }
}

/**
 * Hashes `prefix || left || right` (65 bytes, two blocks) for `left` at `input[leftAt..+8]` and
 * `right` at `input[rightAt..+8]` (big-endian words), writing 8 words to `output[outAt..+8]`.
 * Checks nothing: for the loops of this module and merkle.ts, which check their arrays once.
 */
function hash65(
  high: number,
  left: Int32Array,
  leftAt: number,
  right: Int32Array,
  rightAt: number,
  output: Int32Array,
  outAt: number,
): void {
  let word = left[leftAt] as number;
  W[0] = high | (word >>> 8);
  for (let t = 1; t < 8; t += 1) {
    const next = left[leftAt + t] as number;
    W[t] = (word << 24) | (next >>> 8);
    word = next;
  }
  for (let t = 8; t < 16; t += 1) {
    const next = right[rightAt + t - 8] as number;
    W[t] = (word << 24) | (next >>> 8);
    word = next;
  }
  compress(IV, 0, W, MIDDLE, 0);
  rounds(MIDDLE, 0, TAIL_65, (word & 0xff) << 6, output, outAt);
}

/**
 * Hashes `prefix || a || b` for each pair of consecutive 32-byte items of `input`: pair `p` is
 * items `2p` and `2p + 1`, and its hash goes to `output[8p..8p+8]` (8 big-endian words per
 * item). With `sorted`, the smaller item (bytewise, as unsigned words compare) comes first, as
 * in the anchor tree's parents; otherwise left then right, as in RFC 9162's. `output` may be
 * `input` (pair `p` is read before item `p` is written).
 *
 * @param prefix - the byte before the pair (0x01 for a Merkle node)
 * @param input - `16 * pairs` words or more
 * @param pairs - how many pairs
 * @param output - room for `8 * pairs` words
 * @param sorted - order each pair ascending before hashing
 * @throws TypeError when `input` or `output` is not an Int32Array
 * @throws RangeError when `prefix` is not a byte, or an array is too short for `pairs`
 */
export function sha256PairWords(
  prefix: number,
  input: Int32Array,
  pairs: number,
  output: Int32Array,
  sorted = false,
): void {
  assertByte(prefix, 'sha256PairWords: prefix');
  assertWords(input, 'sha256PairWords: input');
  assertWords(output, 'sha256PairWords: output');
  assertIndex(pairs, 'sha256PairWords: pairs');
  if (input.length < 16 * pairs || output.length < 8 * pairs)
    throw new RangeError(`sha256PairWords: input needs ${16 * pairs} words and output ${8 * pairs} for ${pairs} pairs`);
  const high = prefix << 24;
  for (let pair = 0; pair < pairs; pair += 1) {
    const a = 16 * pair;
    const b = a + 8;
    let swap = false;
    if (sorted) {
      for (let t = 0; t < 8; t += 1) {
        const x = (input[a + t] as number) >>> 0;
        const y = (input[b + t] as number) >>> 0;
        if (x !== y) {
          swap = x > y;
          break;
        }
      }
    }
    if (swap) hash65(high, input, b, input, a, output, 8 * pair);
    else hash65(high, input, a, input, b, output, 8 * pair);
  }
}

/**
 * SHA-256 of `count` inputs of `length` bytes each, laid end to end in `data`.
 *
 * @param data - the inputs, `length * count` bytes (more is ignored)
 * @param length - the length of every input, in bytes (0 is allowed)
 * @param count - how many inputs; default `data.length / length` (all of `data`; 1 when
 *   `length` is 0 and `data` is empty)
 * @param output - where the digests go, 32 bytes each; default a new array
 * @returns `output`: digest `i` at bytes `32i..32i+32`
 * @throws TypeError when `data` or `output` is not a Uint8Array
 * @throws RangeError when `data` or `output` is too short, or `length` does not divide
 *   `data.length` and no `count` is given
 */
export function sha256Batch(data: Uint8Array, length: number, count?: number, output?: Uint8Array): Uint8Array {
  assertBytes(data, 'sha256Batch: data');
  assertIndex(length, 'sha256Batch: length');
  let total: number;
  if (count === undefined) {
    if (length === 0) total = data.length === 0 ? 1 : NaN;
    else total = data.length % length === 0 ? data.length / length : NaN;
    if (Number.isNaN(total))
      throw new RangeError(`sha256Batch: ${data.length} bytes are not a whole number of ${length}-byte inputs`);
  } else {
    assertIndex(count, 'sha256Batch: count');
    total = count;
  }
  if (length * total > data.length)
    throw new RangeError(`sha256Batch: ${total} inputs of ${length} bytes need ${length * total} bytes of data`);
  const out = output ?? new Uint8Array(32 * total);
  assertBytes(out, 'sha256Batch: output');
  if (out.length < 32 * total) throw new RangeError(`sha256Batch: output needs ${32 * total} bytes`);
  const state = new Int32Array(8);
  // The padded tail: what is left after the whole blocks, 0x80, zeros, the bit length.
  const tailBlocks = (length % 64) + 9 > 64 ? 2 : 1;
  const tail = new Uint8Array(64 * tailBlocks);
  const wholeBlocks = Math.floor(length / 64);
  const rest = length % 64;
  for (let input = 0; input < total; input += 1) {
    const start = input * length;
    state.set(IV);
    for (let block = 0; block < wholeBlocks; block += 1) {
      bytesBlock(data, start + 64 * block);
      compress(state, 0, W, state, 0);
    }
    tail.fill(0);
    tail.set(data.subarray(start + 64 * wholeBlocks, start + length));
    tail[rest] = 0x80;
    // The bit length as a 64-bit big-endian number; length * 8 is below 2^53.
    const bits = length * 8;
    const end = tail.length;
    const high = Math.floor(bits / 0x100000000);
    tail[end - 8] = high >>> 24;
    tail[end - 7] = high >>> 16;
    tail[end - 6] = high >>> 8;
    tail[end - 5] = high;
    tail[end - 4] = bits >>> 24;
    tail[end - 3] = bits >>> 16;
    tail[end - 2] = bits >>> 8;
    tail[end - 1] = bits;
    for (let block = 0; block < tailBlocks; block += 1) {
      bytesBlock(tail, 64 * block);
      compress(state, 0, W, state, 0);
    }
    sha256WordsToBytes(state, 8, out, 32 * input);
  }
  return out;
}

/** Loads W[0..15] from 64 bytes at `data[at..]`. */
function bytesBlock(data: Uint8Array, at: number): void {
  for (let t = 0; t < 16; t += 1) {
    const i = at + 4 * t;
    W[t] =
      ((data[i] as number) << 24) |
      ((data[i + 1] as number) << 16) |
      ((data[i + 2] as number) << 8) |
      (data[i + 3] as number);
  }
}

/**
 * Reads bytes as big-endian words: `4 * count` bytes from `bytes[at..]` into `words[wordsAt..]`.
 *
 * @param bytes - the source
 * @param at - where to start reading
 * @param count - how many words
 * @param words - the target
 * @param wordsAt - where to start writing; default 0
 * @throws TypeError on arrays of the wrong type
 * @throws RangeError when either array is too short
 */
export function sha256Words(bytes: Uint8Array, at: number, count: number, words: Int32Array, wordsAt = 0): void {
  assertBytes(bytes, 'sha256Words: bytes');
  assertWords(words, 'sha256Words: words');
  assertIndex(at, 'sha256Words: at');
  assertIndex(count, 'sha256Words: count');
  assertIndex(wordsAt, 'sha256Words: wordsAt');
  if (at + 4 * count > bytes.length || wordsAt + count > words.length)
    throw new RangeError('sha256Words: an array is too short');
  for (let t = 0; t < count; t += 1) {
    const i = at + 4 * t;
    words[wordsAt + t] =
      ((bytes[i] as number) << 24) |
      ((bytes[i + 1] as number) << 16) |
      ((bytes[i + 2] as number) << 8) |
      (bytes[i + 3] as number);
  }
}

/**
 * Writes big-endian words as bytes: `count` words from `words[0..]` to `bytes[at..]`.
 *
 * @param words - the source
 * @param count - how many words
 * @param bytes - the target
 * @param at - where to start writing; default 0
 * @throws TypeError on arrays of the wrong type
 * @throws RangeError when either array is too short
 */
export function sha256WordsToBytes(words: Int32Array, count: number, bytes: Uint8Array, at = 0): void {
  assertWords(words, 'sha256WordsToBytes: words');
  assertBytes(bytes, 'sha256WordsToBytes: bytes');
  assertIndex(count, 'sha256WordsToBytes: count');
  assertIndex(at, 'sha256WordsToBytes: at');
  if (count > words.length || at + 4 * count > bytes.length)
    throw new RangeError('sha256WordsToBytes: an array is too short');
  for (let t = 0; t < count; t += 1) {
    const word = words[t] as number;
    const i = at + 4 * t;
    bytes[i] = word >>> 24;
    bytes[i + 1] = word >>> 16;
    bytes[i + 2] = word >>> 8;
    bytes[i + 3] = word;
  }
}
