/**
 * PDF jobs are admitted by memory, not only by count: a job starts when nothing else runs, or when the process's
 * memory plus the reservations of the running jobs plus its own fit in the cap; otherwise it waits (first come, first
 * served) until a job ends or memory falls, or until its caller gives up. Memory is a fake here, so every step is
 * decided by the numbers alone.
 */
import { describe, expect, it } from 'vitest';
import { extractionReserveBytes, MemoryAdmission } from '../../src/pdf/memory-admission.js';
import { DEFAULT_INDEX_LIMITS } from '../../src/pdf/text-index/limits.js';

const MB = 1024 * 1024;

function admission(rssMb: { value: number }, capMb = 3072): MemoryAdmission {
  return new MemoryAdmission({ capBytes: () => capMb * MB, rssBytes: () => rssMb.value * MB, recheckMs: 10 });
}

/** Whether `promise` has settled after the queued callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setTimeout(r, 30));
  return done;
}

describe('memory admission of PDF jobs', () => {
  it('reserves a quarter of the process cap for a text extraction (768 MB by default)', () => {
    expect(extractionReserveBytes(DEFAULT_INDEX_LIMITS)).toBe(768 * MB);
  });

  it('always starts a job when none runs, even past the cap (nothing else could free memory)', async () => {
    const gate = admission({ value: 4000 });
    const done = await gate.admit(768 * MB);
    expect(gate.load).toEqual({ running: 1, waiting: 0 });
    done();
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
  });

  it('holds a job while the running ones could take memory past the cap, and starts it when one ends', async () => {
    const rss = { value: 300 };
    const gate = admission(rss);
    const first = await gate.admit(768 * MB);
    const second = await gate.admit(768 * MB); // 300 + 768 + 768 ≤ 3072
    const third = await gate.admit(768 * MB); // 300 + 1536 + 768 ≤ 3072
    const fourth = gate.admit(768 * MB); // 300 + 2304 + 768 > 3072
    expect(await settled(fourth)).toBe(false);
    expect(gate.load).toEqual({ running: 3, waiting: 1 });
    first();
    expect(await settled(fourth)).toBe(true);
    second();
    third();
    (await fourth)();
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
  });

  it('starts a waiting job when memory falls, without any job ending', async () => {
    const rss = { value: 2500 };
    const gate = admission(rss);
    const running = await gate.admit(512 * MB);
    const waiting = gate.admit(512 * MB); // 2500 + 512 + 512 > 3072
    expect(await settled(waiting)).toBe(false);
    rss.value = 1000;
    expect(await settled(waiting)).toBe(true);
    running();
    (await waiting)();
  });

  it('serves in arrival order: a small job does not pass a large one that waits', async () => {
    const rss = { value: 1000 };
    const gate = admission(rss);
    const running = await gate.admit(1000 * MB);
    const large = gate.admit(1500 * MB); // 1000 + 1000 + 1500 > 3072
    const small = gate.admit(100 * MB); // would fit, but arrived later
    expect(await settled(small)).toBe(false);
    running();
    expect(await settled(large)).toBe(true);
    expect(await settled(small)).toBe(true);
    (await large)();
    (await small)();
  });

  it('lets a caller stop waiting; the next in line goes on', async () => {
    const rss = { value: 2000 };
    const gate = admission(rss);
    const running = await gate.admit(600 * MB);
    const controller = new AbortController();
    const abandoned = gate.admit(600 * MB, controller.signal);
    const next = gate.admit(10 * MB);
    controller.abort(new Error('client gone'));
    await expect(abandoned).rejects.toThrow('client gone');
    expect(await settled(next)).toBe(true);
    running();
    (await next)();
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
  });
});
