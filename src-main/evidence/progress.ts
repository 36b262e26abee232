/**
 * Progress of a long import or export, for the CLI's progress bar and the app. An import's
 * events are the app API contract's ImportProgress counters (src-main/operations/import.ts
 * `ImportProgressEvent`); an export's are {@link ExportProgress}.
 *
 * Listeners get a plain event object at most every `intervalMs` (default 100 ms) and always at
 * a phase change and at the end; `perSecond` is the rate of the phase's own counter (files in
 * the checking phase, receipts while verifying or writing) since the phase began, and
 * `secondsLeft` the time that rate needs for the rest (null until there is a rate).
 */

/** The phases of an export, in order. */
export type ExportPhase = 'writing' | 'finishing' | 'done';

/** An export's progress. */
export interface ExportProgress {
  phase: ExportPhase;
  receiptsWritten: number;
  receiptsTotal: number;
  perSecond: number;
  secondsLeft: number | null;
}

/** Reports progress events to one listener, throttled. */
export interface ProgressReporter<Phase extends string> {
  /**
   * Set counters; emits when the phase changed or the interval passed.
   *
   * @param phase - The current phase.
   * @param done - The phase's own counter.
   * @param total - What that counter runs to.
   * @param fields - The other fields of the event.
   */
  update(phase: Phase, done: number, total: number, fields: Record<string, number>, force?: boolean): void;
}

/**
 * Make a throttled reporter.
 *
 * @param listener - Receives events; undefined makes a reporter that does nothing.
 * @param build - Turns the phase, counters, rate and time left into the event.
 * @param intervalMs - Minimum time between events of one phase.
 * @returns The reporter.
 */
export function createProgressReporter<Phase extends string, Event>(
  listener: ((event: Event) => void) | undefined,
  build: (phase: Phase, fields: Record<string, number>, perSecond: number, secondsLeft: number | null) => Event,
  intervalMs = 100,
): ProgressReporter<Phase> {
  let currentPhase: Phase | undefined;
  let phaseStart = 0;
  let lastEmit = 0;
  return {
    update(phase, done, total, fields, force = false) {
      if (listener === undefined) return;
      const now = performance.now();
      const changed = phase !== currentPhase;
      if (changed) {
        currentPhase = phase;
        phaseStart = now;
      }
      if (!changed && !force && now - lastEmit < intervalMs) return;
      lastEmit = now;
      const seconds = (now - phaseStart) / 1000;
      const perSecond = seconds > 0.05 ? done / seconds : 0;
      const secondsLeft = perSecond > 0 ? Math.max(0, (total - done) / perSecond) : null;
      listener(build(phase, fields, Math.round(perSecond), secondsLeft === null ? null : Math.ceil(secondsLeft)));
    },
  };
}
