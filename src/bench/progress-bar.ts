/**
 * The progress bar of `paraph bench`: nothing for benchmarks that finish within a second, then, on a terminal, one
 * line on stderr redrawn in place (`[#####·····] 2/5 sign ×5  3.4 s`) until `done()` clears it. Into a file, a pipe
 * or a CI log (not a terminal) it writes plain lines instead (`progress 2/5 sign  3.4 s`), at most one every
 * `lineEveryMs`, and a last one when the work ends: no carriage returns, no escape codes.
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
  /** Whether `write` goes to a terminal that can redraw a line (default true); otherwise plain lines. */
  readonly terminal?: boolean;
  /** Off a terminal: at most one line per this many ms (default 5000). */
  readonly lineEveryMs?: number;
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

/** The plain line (off a terminal) for `done` of `total` runs after `elapsedMs`. */
export function renderProgressLine(done: number, total: number, elapsedMs: number, label: string): string {
  return `progress ${done}/${total} ${label}  ${(elapsedMs / 1000).toFixed(1)} s\n`;
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
  const terminal = options.terminal ?? true;
  const lineEveryMs = options.lineEveryMs ?? 5000;
  let state = { done: 0, total: options.total };
  let drawn = false;
  let lastLine: { at: number; done: number } | undefined;
  const writeLine = (elapsed: number): void => {
    lastLine = { at: elapsed, done: state.done };
    options.write(renderProgressLine(state.done, state.total, elapsed, options.label));
  };
  const draw = (): void => {
    const elapsed = Date.now() - start;
    if (elapsed < afterMs) return;
    drawn = true;
    if (!terminal) {
      if (lastLine === undefined || elapsed - lastLine.at >= lineEveryMs) writeLine(elapsed);
      return;
    }
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
      if (!drawn) return;
      if (terminal) options.write('\r\x1b[K');
      else if (lastLine?.done !== state.done) writeLine(Date.now() - start);
    },
    shown: () => drawn,
  };
}
