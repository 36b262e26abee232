// What the CI gate scripts (audit.mjs, licences.mjs, electron-scan.mjs) share: reading a JSON
// file with a one-line error, reading an answers file (findings the project has answered in
// words, each checked with the JSON Pointer of its fault), printing the problems found, and
// running a script so that bad input exits 2 with one line and never a stack trace.
import { readFileSync } from 'node:fs';

/** Bad input of a gate script: said in one line, exit code 2. */
export class InputError extends Error {}

/**
 * Reads and parses a JSON file.
 *
 * @param {string} file - Its path.
 * @param {string} shown - The name errors give it (relative to the repository).
 * @returns {unknown} The parsed value.
 * @throws {InputError} When the file cannot be read or is not JSON.
 */
export function readJson(file, shown) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read ${shown}: ${error.code === 'ENOENT' ? 'it does not exist' : error.message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputError(`${shown}: not JSON (${error.message})`);
  }
}

/**
 * Reads an answers file `{"answers": [...], "$comment"?}`.
 *
 * @param {string} file - Its path.
 * @param {string} shown - The name errors give it.
 * @param {object} shape - What an answer is.
 * @param {string[]} shape.members - The members an answer may have (all required strings unless
 *   `check` says otherwise); `reason` is one of them and is returned trimmed.
 * @param {(answer: Record<string, unknown>, at: string, fail: (pointer: string, message: string) => never) => void} shape.check -
 *   The checks of one answer's members; `at` is its pointer (`/answers/3`).
 * @param {(answer: Record<string, string>) => string} shape.key - What makes two answers the same answer.
 * @param {(answer: Record<string, string>) => string} shape.duplicate - The message for a second one.
 * @returns {Record<string, string>[]} The answers, in file order, `reason` trimmed.
 * @throws {InputError} `SHOWN: POINTER: message` for the first fault.
 */
export function readAnswers(file, shown, shape) {
  const document = readJson(file, shown);
  const fail = (pointer, message) => {
    throw new InputError(`${shown}: ${pointer || '/'}: ${message}`);
  };
  const fields = `{${shape.members.join(', ')}}`;
  if (document === null || typeof document !== 'object' || Array.isArray(document))
    fail('', 'must be an object {"answers": [...]}');
  for (const key of Object.keys(document))
    if (key !== 'answers' && key !== '$comment') fail(`/${key}`, 'unknown member (allowed: answers, $comment)');
  if (!Array.isArray(document.answers)) fail('/answers', 'must be an array');
  const seen = new Set();
  return document.answers.map((answer, index) => {
    const at = `/answers/${index}`;
    if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) fail(at, `must be an object ${fields}`);
    for (const key of Object.keys(answer))
      if (!shape.members.includes(key)) fail(`${at}/${key}`, `unknown member (allowed: ${shape.members.join(', ')})`);
    shape.check(answer, at, fail);
    const key = shape.key(answer);
    if (seen.has(key)) fail(at, shape.duplicate(answer));
    seen.add(key);
    return {
      ...Object.fromEntries(shape.members.map((member) => [member, answer[member]])),
      reason: answer.reason.trim(),
    };
  });
}

/**
 * Prints the verdict: `FAIL: N problem(s)` and each problem, or the PASS line.
 *
 * @param {string[]} problems - What is wrong, one line each.
 * @param {string} pass - The PASS line's words.
 * @param {string} [advice] - Said after the FAIL count, in brackets.
 * @returns {number} The exit code: 1 with problems, else 0.
 */
export function verdict(problems, pass, advice) {
  if (problems.length > 0) {
    console.log(`FAIL: ${problems.length} problem${problems.length === 1 ? '' : 's'}${advice ? ` (${advice})` : ''}`);
    for (const problem of problems) console.log(`  ${problem}`);
    return 1;
  }
  console.log(`PASS: ${pass}`);
  return 0;
}

/**
 * Runs a script's main (its exit code, or a promise of it). Bad input ({@link InputError})
 * exits 2 with `NAME: message`; anything else exits 2 with `NAME: failed: message`. Neither
 * prints a stack trace.
 *
 * @param {string} name - The script's name, starting each error line.
 * @param {() => number | Promise<number>} main - The script.
 */
export function runScript(name, main) {
  const fail = (error) => {
    console.error(`${name}: ${error instanceof InputError ? error.message : `failed: ${error?.message ?? error}`}`);
    process.exitCode = 2;
  };
  try {
    Promise.resolve(main()).then((code) => {
      process.exitCode = code;
    }, fail);
  } catch (error) {
    fail(error);
  }
}
