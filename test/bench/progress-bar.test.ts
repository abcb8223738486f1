import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createProgressBar, renderProgress, renderProgressLine } from '../../src/bench/progress-bar.js';

describe('progress bar', () => {
  it('renders the runs done as a filled share of the bar, with the elapsed time', () => {
    expect(renderProgress(0, 5, 1200, 'sign', 10)).toBe('[··········] 0/5 sign  1.2 s');
    expect(renderProgress(2, 5, 3400, 'sign', 10)).toBe('[####······] 2/5 sign  3.4 s');
    expect(renderProgress(5, 5, 10_000, 'sign', 10)).toBe('[##########] 5/5 sign  10.0 s');
  });

  it('stays silent for work that ends before the threshold', async () => {
    const written: string[] = [];
    const bar = createProgressBar({ total: 3, label: 'place', write: (t) => written.push(t), afterMs: 1000, intervalMs: 5 });
    bar.update(1, 3);
    await sleep(30);
    bar.done();
    expect(written).toEqual([]);
    expect(bar.shown()).toBe(false);
  });

  it('draws on stderr in place once the threshold has passed, and clears the line at the end', async () => {
    const written: string[] = [];
    const bar = createProgressBar({ total: 3, label: 'place', write: (t) => written.push(t), afterMs: 20, intervalMs: 5 });
    await sleep(60);
    bar.update(2, 3);
    bar.done();
    expect(bar.shown()).toBe(true);
    expect(written.every((line) => line.startsWith('\r'))).toBe(true);
    expect(written.at(-2)).toMatch(/^\r\[#+·+\] 2\/3 place {2}\d+\.\d s$/);
    expect(written.at(-1)).toBe('\r\x1b[K');
  });

  it('off a terminal writes plain lines, not redraw frames, and a last line with the final count', async () => {
    const written: string[] = [];
    const bar = createProgressBar({ total: 3, label: 'place', write: (t) => written.push(t), afterMs: 20, intervalMs: 5, terminal: false, lineEveryMs: 60_000 });
    await sleep(80);
    bar.update(2, 3);
    await sleep(30);
    bar.update(3, 3);
    bar.done();
    expect(bar.shown()).toBe(true);
    // many redraw ticks passed, but within lineEveryMs only the first line and the last one are written
    expect(written).toHaveLength(2);
    expect(written[0]).toMatch(/^progress 0\/3 place {2}\d+\.\d s\n$/);
    expect(written[1]).toMatch(/^progress 3\/3 place {2}\d+\.\d s\n$/);
    expect(written.join('')).not.toMatch(/[\r\x1b]/);
    expect(renderProgressLine(2, 5, 3400, 'sign')).toBe('progress 2/5 sign  3.4 s\n');
  });

  it('off a terminal, work that ends before the threshold writes nothing', async () => {
    const written: string[] = [];
    const bar = createProgressBar({ total: 3, label: 'sign', write: (t) => written.push(t), afterMs: 1000, intervalMs: 5, terminal: false });
    bar.update(3, 3);
    await sleep(20);
    bar.done();
    expect(written).toEqual([]);
  });
});
