/**
 * Media queries read and followed without losing a change.
 *
 * Chromium brings a MediaQueryList's state up to date when its `matches` is read, and a change
 * taken in by such a read is never announced to that list's listeners. A render reading the
 * list a component listens to, between the change (a resize, print emulation) and the next
 * frame, swallowed the change: the printed record never came (a failure seen in CI 1 run in 3).
 * So the state is read from a fresh list each time, and each follower listens on a list of its
 * own that nothing else reads.
 */

/** Whether `query` matches now. */
export function mediaMatches(query: string): boolean {
  return window.matchMedia(query).matches;
}

/**
 * Calls `onChange` with each change of `query`, on a list no other code reads.
 *
 * @returns A function that stops following.
 */
export function followMedia(query: string, onChange: (matches: boolean) => void): () => void {
  const list = window.matchMedia(query);
  const listener = (event: MediaQueryListEvent): void => onChange(event.matches);
  list.addEventListener('change', listener);
  return () => list.removeEventListener('change', listener);
}
