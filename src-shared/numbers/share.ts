/**
 * A part of a whole as a percentage for people, never rounded onto a boundary: "100 %" means
 * every one and "0 %" means none. Anything else shows two decimals at most (trailing zeros
 * dropped), and a share too close to a boundary for two decimals reads ">99.99 %" or "<0.01 %".
 * So 28 failures among 20,041 receipts read "99.86 %" passed, and one among them ">99.99 %".
 */

/** The decimals shown at most. */
const DECIMALS = 2;

/**
 * The share of `part` in `whole` as text, e.g. `99.86 %`.
 *
 * @param part - how many (an integer from 0 to whole)
 * @param whole - of how many (a non-negative integer)
 * @returns the percentage with a space before the sign, or undefined when whole is 0 (no share
 *   of nothing)
 * @throws RangeError when part or whole is not an integer, or part is not between 0 and whole
 * @example formatShare(20_013, 20_041) // '99.86 %'
 * @example formatShare(20_040, 20_041) // '>99.99 %'
 * @example formatShare(1, 20_041) // '<0.01 %'
 */
export function formatShare(part: number, whole: number): string | undefined {
  if (!Number.isSafeInteger(part) || !Number.isSafeInteger(whole) || whole < 0 || part < 0 || part > whole)
    throw new RangeError(`formatShare: ${part} of ${whole} is not a part of a whole`);
  if (whole === 0) return undefined;
  if (part === whole) return '100 %';
  if (part === 0) return '0 %';
  const scale = 10 ** DECIMALS;
  const rounded = Math.round((part / whole) * 100 * scale) / scale;
  const smallest = 1 / scale;
  if (rounded >= 100) return `>${(100 - smallest).toFixed(DECIMALS)} %`;
  if (rounded <= 0) return `<${smallest.toFixed(DECIMALS)} %`;
  return `${trimZeros(rounded.toFixed(DECIMALS))} %`;
}

/** "12.50" → "12.5", "50.00" → "50". */
function trimZeros(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/**
 * How full a progress bar is drawn, in whole percent: rounded down, so the bar is full only when
 * the work is (never 100 with one item to go), and 0 when the total is not known yet.
 *
 * @param done - Items done.
 * @param total - Items in all (0 when not known yet).
 * @returns 0 to 100.
 */
export function progressPercent(done: number, total: number): number {
  if (!(total > 0) || !(done > 0)) return 0;
  return Math.min(100, Math.floor((done / total) * 100));
}
