/**
 * The progress bar of `paraph bench`: nothing for benchmarks that finish within a second, then one line on
 * stderr redrawn in place (`[#####·····] 2/5 sign ×5  3.4 s`) until `done()` clears it.
 */

/** Options of {@link createProgressBar}. */
export interface ProgressBarOptions {
  /** How many runs there will be. */
  readonly total: number;
  /** Text after the counts, e.g. `sign ×5`. */
  readonly label: string;
  /** Where the bar is written (stderr). */
  readonly write: (text: string) => void;
  /** Show the bar only after this many ms (default 1000). */
  readonly afterMs?: number;
  /** Redraw interval in ms (default 200). */
  readonly intervalMs?: number;
  /** Width of the bar in characters (default 30). */
  readonly width?: number;
}

/** A running progress bar. */
export interface ProgressBar {
  /** Records progress (runs done of total); the bar shows it at the next redraw. */
  readonly update: (done: number, total: number) => void;
  /** Stops redrawing and clears the line, when one was drawn. */
  readonly done: () => void;
  /** Whether a line has been drawn. */
  readonly shown: () => boolean;
}

/** The line for `done` of `total` runs after `elapsedMs` (exported for tests). */
export function renderProgress(done: number, total: number, elapsedMs: number, label: string, width = 30): string {
  const filled = total > 0 ? Math.min(width, Math.round((done / total) * width)) : 0;
  return `[${'#'.repeat(filled)}${'·'.repeat(width - filled)}] ${done}/${total} ${label}  ${(elapsedMs / 1000).toFixed(1)} s`;
}

/**
 * Starts a progress bar: a timer (unref'd, so it never keeps the process alive) redraws the line once `afterMs`
 * have passed.
 */
export function createProgressBar(options: ProgressBarOptions): ProgressBar {
  const start = Date.now();
  const afterMs = options.afterMs ?? 1000;
  let state = { done: 0, total: options.total };
  let drawn = false;
  const draw = (): void => {
    const elapsed = Date.now() - start;
    if (elapsed < afterMs) return;
    drawn = true;
    options.write(`\r${renderProgress(state.done, state.total, elapsed, options.label, options.width)}`);
  };
  const timer = setInterval(draw, options.intervalMs ?? 200);
  timer.unref();
  return {
    update: (done, total) => {
      state = { done, total };
      draw();
    },
    done: () => {
      clearInterval(timer);
      if (drawn) options.write('\r\x1b[K');
    },
    shown: () => drawn,
  };
}
