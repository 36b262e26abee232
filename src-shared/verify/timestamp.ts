/**
 * TS timestamps (PROTOCOL section 0): `YYYY-MM-DDThh:mm:ss[.f{1,9}]Z`, always UTC.
 *
 * `Date.parse` accepts far more than TS (offsets, missing seconds, local time) and differs
 * between engines on fractions longer than milliseconds, so TS is matched and converted here.
 */

const TIMESTAMP_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;

/**
 * Whether a value is a TS timestamp naming a real calendar instant.
 *
 * Months 01-12, days within the month (leap years included), hours 00-23, minutes and seconds
 * 00-59. Leap seconds (`:60`) are refused: no issuer of ours emits them and JavaScript time
 * cannot represent them.
 *
 * @param value - Anything.
 * @returns True for a valid TS string.
 * @example isTimestamp('2026-11-22T04:05:06.789Z') // true
 */
export function isTimestamp(value: unknown): value is string {
  return typeof value === 'string' && parseParts(value) !== undefined;
}

/**
 * Milliseconds since the Unix epoch of a TS timestamp, fractions beyond milliseconds truncated.
 *
 * @param timestamp - A TS string.
 * @returns The instant in milliseconds.
 * @throws TypeError if `timestamp` is not a string.
 * @throws RangeError if it is not a valid TS.
 */
export function timestampToMillis(timestamp: string): number {
  if (typeof timestamp !== 'string') throw new TypeError('A timestamp must be a string');
  const millis = parseParts(timestamp);
  if (millis === undefined) {
    throw new RangeError(`Not a TS timestamp (YYYY-MM-DDThh:mm:ss[.fff]Z): ${JSON.stringify(timestamp.slice(0, 64))}`);
  }
  return millis;
}

function parseParts(text: string): number | undefined {
  const match = TIMESTAMP_PATTERN.exec(text);
  if (match === null) return undefined;
  const [, yearText, monthText, dayText, hourText, minuteText, secondText, fraction] = match;
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  const hour = Number(hourText);
  const minute = Number(minuteText);
  const second = Number(secondText);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const millis = fraction === undefined ? 0 : Number(fraction.padEnd(3, '0').slice(0, 3));
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear keeps the year as written.
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis));
  date.setUTCFullYear(year);
  return date.getTime();
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
