/**
 * pdf.js never runs on the serving thread, so neither its global patches (core-js polyfills of
 * `Array.prototype.push`, `JSON.stringify`, …) nor its work reach the thread that answers requests. A child process
 * runs a whole transaction against the service started in-process (serving-thread-flow.ts) and reports pdf.js's
 * globals afterwards; it then loads pdf.js itself, which shows that the probe sees it when it is there.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { TSX_LOADER } from '../helpers/tsx.js';

const run = promisify(execFile);
const FLOW = fileURLToPath(new URL('./serving-thread-flow.ts', import.meta.url));

describe('the serving thread', () => {
  it('never loads pdf.js through a whole flow (upload, Search metadata, start, sign, seal, download)', async () => {
    const { stdout } = await run(process.execPath, ['--import', TSX_LOADER, FLOW], { maxBuffer: 1 << 20, timeout: 150_000 });
    const report = JSON.parse(stdout.trim().split('\n').at(-1) as string) as { steps: string[]; afterFlow: string[]; afterLoadingPdfjs: string[] };
    expect(report.steps).toEqual(['uploaded', 'signed', 'sealed']);
    expect(report.afterFlow).toEqual([]);
    expect(report.afterLoadingPdfjs).toContain('globalThis.pdfjsLib');
  }, 180_000);
});
