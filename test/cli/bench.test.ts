import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchCommand } from '../../src/cli/bench.js';
import { runCommand } from '../../src/cli/common.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { generatePdf } from '../../src/testing/generate-pdf.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { TSX_LOADER } from '../helpers/tsx.js';
import { TEST_NOW } from '../helpers/test-now.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const fx = usePadesFixture();
let dir: string;
let pdfPath: string;
let signedPath: string;
let metadataPath: string;
let rootPath: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paraph-bench-cli-'));
  const { bytes } = await generatePdf([
    { width: 595, height: 842, rotation: 0, texts: [{ anchor: '{{Signer1}}', left: 72, baseline: 200, size: 12, font: 'Helvetica', style: 'plain' }] },
    { width: 595, height: 842, rotation: 0, texts: [] },
    { width: 595, height: 842, rotation: 0, texts: [] },
  ]);
  pdfPath = join(dir, 'in.pdf');
  await writeFile(pdfPath, bytes);
  const { pki } = fx;
  signedPath = join(dir, 'signed.pdf');
  await writeFile(signedPath, (await signPdf(bytes, { signer: pki.signers.p256.signer, signingTime: new Date(TEST_NOW) })).bytes);
  rootPath = pki.rootPath;
  metadataPath = join(dir, 'metadata.json');
  await writeFile(metadataPath, JSON.stringify({ FormSets: { f: { sig: { Type: 'Signature', Location: { Search: '{{Signer1}}', Top: -75 } } } } }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function bench(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCommand(benchCommand, args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

function expectResultFields(json: Record<string, unknown>, operation: string, runs: number): void {
  expect(json).toMatchObject({ operation, pages: 3, runs, warmup: 1 });
  expect(typeof json.file).toBe('string');
  expect(json.bytes).toBeGreaterThan(0);
  const times = json.timesMs as number[];
  expect(times).toHaveLength(runs);
  const [min, median, max] = [json.minMs, json.medianMs, json.maxMs] as number[];
  expect(min).toBe(Math.min(...times));
  expect(max).toBe(Math.max(...times));
  expect(min).toBeLessThanOrEqual(median!);
  expect(median).toBeLessThanOrEqual(max!);
  expect(json.msPerPage).toBeCloseTo(median! / 3, 9);
  expect(json.peakRssMb).toBeGreaterThan(0);
  expect(json.peakRssMb).toBeGreaterThanOrEqual(json.baselineRssMb as number);
}

describe('paraph bench --json', () => {
  it('place: parses and has min/median/max, ms per page and peak RSS', async () => {
    const { code, stdout, stderr } = await bench(['place', pdfPath, metadataPath, '--runs', '3', '--json', '--no-progress']);
    expect(code, stderr).toBe(0);
    const json = JSON.parse(stdout) as Record<string, unknown>;
    expectResultFields(json, 'place', 3);
    expect(json.file).toBe(pdfPath);
  });

  it('sign (default 5 runs) and verify with a trust root', async () => {
    const sign = await bench(['sign', pdfPath, '--json', '--no-progress']);
    expect(sign.code, sign.stderr).toBe(0);
    expectResultFields(JSON.parse(sign.stdout) as Record<string, unknown>, 'sign', 5);
    const verify = await bench(['verify', signedPath, '--trust', rootPath, '--runs', '2', '--json', '--no-progress']);
    expect(verify.code, verify.stderr).toBe(0);
    expectResultFields(JSON.parse(verify.stdout) as Record<string, unknown>, 'verify', 2);
  });

  it('as a process: stdout is only the JSON line, whatever the progress bar writes to stderr', async () => {
    const { stdout } = await run(process.execPath, ['--import', TSX_LOADER, CLI, 'bench', 'verify', signedPath, '--runs', '2', '--json']);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expectResultFields(JSON.parse(stdout) as Record<string, unknown>, 'verify', 2);
  });
});

describe('paraph bench text output and errors', () => {
  it('prints min/median/max, per page and peak RSS', async () => {
    const { code, stdout } = await bench(['verify', signedPath, '--runs', '1', '--no-progress']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/verify .*signed\.pdf: 3 pages/);
    expect(stdout).toMatch(/min [\d.]+ ms {3}median [\d.]+ ms {3}max [\d.]+ ms/);
    expect(stdout).toMatch(/per page {2}[\d.]+ ms/);
    expect(stdout).toMatch(/peak RSS {2}\d+ MB/);
  });

  it('usage mistakes exit 2 naming the problem', async () => {
    expect(await bench([])).toMatchObject({ code: 2, stderr: expect.stringContaining('needs an operation: place, sign, verify') });
    expect(await bench(['place', pdfPath])).toMatchObject({ code: 2, stderr: expect.stringContaining('a PDF and a metadata JSON file') });
    expect(await bench(['sign', pdfPath, '--runs', '0'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--runs must be a whole number of at least 1 (got "0")') });
    expect(await bench(['verify', join(dir, 'missing.pdf')])).toMatchObject({ code: 2, stderr: expect.stringContaining('cannot read PDF') });
    expect(await bench(['sign', metadataPath])).toMatchObject({ code: 2 });
  });
});
