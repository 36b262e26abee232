/**
 * Locating the first ill-formed UTF-8 sequence.
 *
 * A fatal `TextDecoder` says only that the input is bad; people fixing a file want to know
 * where. This runs only after the decoder has failed, so it favours clarity over speed.
 */

/**
 * Find the first ill-formed UTF-8 sequence in `bytes`.
 *
 * Follows the Unicode well-formedness table (Unicode 15, table 3-7): no overlong forms, no
 * encoded surrogates (ED A0..BF), nothing above U+10FFFF, no truncated sequences. This is the
 * same acceptance as a fatal WHATWG `TextDecoder('utf-8')`.
 *
 * @param bytes - The bytes to check.
 * @returns The byte offset where the first ill-formed sequence starts, or -1 if all is well.
 * @throws TypeError if `bytes` is not a Uint8Array.
 */
export function findInvalidUtf8(bytes: Uint8Array): number {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('findInvalidUtf8 expects a Uint8Array');
  let index = 0;
  for (;;) {
    const lead = bytes[index];
    if (lead === undefined) return -1;
    if (lead < 0x80) {
      index++;
      continue;
    }
    let continuationCount: number;
    if (lead >= 0xc2 && lead <= 0xdf) continuationCount = 1;
    else if (lead >= 0xe0 && lead <= 0xef) continuationCount = 2;
    else if (lead >= 0xf0 && lead <= 0xf4) continuationCount = 3;
    else return index;
    // The second byte's range is narrower after some leads; that is what rules out overlong
    // forms, surrogates and code points past U+10FFFF.
    let low = 0x80;
    let high = 0xbf;
    if (lead === 0xe0) low = 0xa0;
    else if (lead === 0xed) high = 0x9f;
    else if (lead === 0xf0) low = 0x90;
    else if (lead === 0xf4) high = 0x8f;
    const second = bytes[index + 1];
    if (second === undefined || second < low || second > high) return index;
    for (let offset = 2; offset <= continuationCount; offset++) {
      const next = bytes[index + offset];
      if (next === undefined || next < 0x80 || next > 0xbf) return index;
    }
    index += continuationCount + 1;
  }
}
