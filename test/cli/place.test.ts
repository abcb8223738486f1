import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, type CliIo } from '../../src/cli/common.js';
import { placeCommand, type PlaceJsonEntry } from '../../src/cli/place.js';
import { pageGeometryFromBoxes, userRectToReader } from '../../src/pdf/page-geometry.js';
import { buildSampleContract, SAMPLE_METADATA } from '../../fixtures/sample/generate.js';
import { qpdfCheck } from '../helpers/external-tools.js';
import { TSX_LOADER } from '../helpers/tsx.js';

const exec = promisify(execFile);
const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

let dir: string;
let contract: string;
let metadata: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paraph-place-cli-'));
  contract = join(dir, 'contract.pdf');
  metadata = join(dir, 'metadata.json');
  await writeFile(contract, await buildSampleContract());
  await writeFile(metadata, JSON.stringify(SAMPLE_METADATA));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function place(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) };
  const code = await runCommand(placeCommand, args, io);
  return { code, stdout, stderr };
}

async function file(name: string, content: string | Uint8Array): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

describe('paraph place', () => {
  it('places the sample fields, writes the PDF and prints every widget with --json', async () => {
    const out = join(dir, 'nested', 'out.pdf');
    const { code, stdout, stderr } = await place([contract, metadata, '-o', out, '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const entries = JSON.parse(stdout) as PlaceJsonEntry[];
    expect(entries.map((e) => [e.field, e.type, e.page])).toEqual([
      ['customer.Signature', 'Signature', 2],
      ['customer.Accept', 'Check', 2],
      ['customer.Place', 'SingleLine', 2],
      ['supplier.Signature', 'Signature', 2],
      ['supplier.Date', 'Date', 2],
      ['organization.Seal', 'Seal', 2],
    ]);
    // The seal has no Search: its place follows from the page alone (A4, Left 72, Bottom 140, 180×90).
    expect(entries[5]).toEqual({ field: 'organization.Seal', type: 'Seal', page: 2, left: 72, top: 611.89, width: 180, height: 90 });

    const pdf = new Uint8Array(await readFile(out));
    const original = new Uint8Array(await readFile(contract));
    expect(Buffer.from(pdf.subarray(0, original.length)).equals(Buffer.from(original))).toBe(true);
    expect((await qpdfCheck(pdf)).ok).toBe(true);
    // poppler sees the three unsigned signature fields under their fully qualified names.
    const { stdout: sigs } = await exec('pdfsig', [out]);
    expect([...sigs.matchAll(/Signature Field Name: (\S+)\n\s+The signature form field is not signed\./g)].map((m) => m[1])).toEqual([
      'customer.Signature',
      'supplier.Signature',
      'organization.Seal',
    ]);
    const task = getDocument({ data: pdf.slice(), isEvalSupported: false, verbosity: 0 });
    const doc = await task.promise;
    const page = await doc.getPage(2);
    const annotations = (await page.getAnnotations()) as { fieldName: string; rect: number[] }[];
    await task.destroy();
    const geo = pageGeometryFromBoxes({ x: 0, y: 0, width: 595.28, height: 841.89 }, 0, 2);
    for (const entry of entries) {
      const a = annotations.find((x) => x.fieldName === entry.field);
      if (!a) throw new Error(`no widget for ${entry.field}`);
      const [x1, y1, x2, y2] = a.rect as [number, number, number, number];
      const back = userRectToReader(geo, { x: x1, y: y1, width: x2 - x1, height: y2 - y1 });
      for (const k of ['left', 'top', 'width', 'height'] as const) expect(Math.abs(back[k] - entry[k])).toBeLessThanOrEqual(0.5);
    }
  });

  it('prints a summary without --json', async () => {
    const out = join(dir, 'summary.pdf');
    const { code, stdout } = await place([contract, metadata, '--output', out]);
    expect(code).toBe(0);
    expect(stdout).toBe(`placed 6 fields (6 widgets) in ${out}\n`);
  });

  it('places the same widgets with --engine pdfjs as with the default PDFium, within 1 pt; refuses an unknown engine', async () => {
    const pdfjs = await place([contract, metadata, '-o', join(dir, 'pdfjs.pdf'), '--json', '--engine', 'pdfjs']);
    const pdfium = await place([contract, metadata, '-o', join(dir, 'pdfium.pdf'), '--json']);
    expect(pdfium.stderr).toBe('');
    expect(pdfium.code).toBe(0);
    const a = JSON.parse(pdfjs.stdout) as PlaceJsonEntry[];
    const b = JSON.parse(pdfium.stdout) as PlaceJsonEntry[];
    expect(b.map((e) => [e.field, e.page])).toEqual(a.map((e) => [e.field, e.page]));
    b.forEach((e, i) => {
      for (const key of ['left', 'top', 'width', 'height'] as const) expect(Math.abs(e[key] - a[i]![key])).toBeLessThanOrEqual(1);
    });
    const bad = await place([contract, metadata, '-o', join(dir, 'x.pdf'), '--engine', 'mupdf']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--engine must be one of pdfjs, pdfium/);
  });

  it('shows help with -h and exits 0', async () => {
    const { code, stdout } = await place(['-h']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^usage: paraph place <in.pdf> <metadata.json> -o <out.pdf> \[--json\]/);
  });

  it('exits 2 on usage mistakes', async () => {
    const missingOut = await place([contract, metadata]);
    expect(missingOut.code).toBe(2);
    expect(missingOut.stderr).toMatch(/^paraph place needs -o <out.pdf>/);
    const oneFile = await place([contract, '-o', join(dir, 'x.pdf')]);
    expect(oneFile.code).toBe(2);
    expect(oneFile.stderr).toMatch(/^paraph place needs an input PDF and a metadata JSON file \(got 1 file arguments\)/);
    const unknown = await place([contract, metadata, '-o', join(dir, 'x.pdf'), '--frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/frobnicate/);
  });

  const valid = async (): Promise<Uint8Array> => new Uint8Array(await readFile(contract));
  const badInputs: [string, () => Promise<[string, string]>, RegExp][] = [
    ['a missing input file', async () => [join(dir, 'nope.pdf'), metadata], /^Cannot read the PDF ".*nope\.pdf": no such file\.$/],
    ['garbage bytes', async () => [await file('garbage.pdf', 'hello, I am not a PDF'), metadata], /^The file is not a PDF \(no "%PDF-" header\)/],
    ['an empty file', async () => [await file('empty.pdf', ''), metadata], /^The file is empty/],
    ['a truncated PDF', async () => [await file('truncated.pdf', (await valid()).slice(0, 700)), metadata], /^The PDF|PDF/],
    ['an encrypted PDF', async () => [await encrypted(), metadata], /encrypted/i],
    ['a 0-page PDF', async () => [await file('zero.pdf', zeroPagePdf()), metadata], /^The PDF has no pages/],
    [
      '10 MB of metadata',
      async () => [contract, await file('big.json', `{"DisplayName":"${'x'.repeat(10 * 1024 * 1024)}"}`)],
      /^FileMetaData: 10485778 bytes is too large; at most 1048576 bytes are accepted$/,
    ],
    [
      'deeply nested JSON',
      async () => [contract, await file('deep.json', '['.repeat(100_000) + ']'.repeat(100_000))],
      /^FileMetaData: JSON nested 100000 levels deep; at most 32 levels are accepted$/,
    ],
    ['metadata that is not JSON', async () => [contract, await file('bad.json', '{"FormSets":')], /^FileMetaData: not valid JSON/],
    [
      'metadata breaking rules',
      async () => [contract, await file('rules.json', JSON.stringify({ FormSets: { f: { s: { Type: 'Signature', Location: { Left: 1, Right: 1, Width: 5 } } } } }))],
      /^FormSets\.f\.s\.Location: PageNumber is required when there is no Search$/,
    ],
    [
      'a Search text that is not in the PDF',
      async () => [contract, await file('missing.json', JSON.stringify({ FormSets: { f: { s: { Type: 'Signature', Location: { Search: '{{Signer7}}' } } } } }))],
      /^FormSets\.f\.s\.Location: Search text "\{\{Signer7\}\}" was not found in the document$/,
    ],
    [
      'a field outside the page',
      async () => [contract, await file('outside.json', JSON.stringify({ FormSets: { f: { s: { Type: 'Seal', Location: { PageNumber: 1, Left: 500 } } } } }))],
      /^FormSets\.f\.s\.Location: the field at left 500, top 0, width 140, height 70 does not fit on page 1/,
    ],
    [
      'a PageNumber beyond the document',
      async () => [contract, await file('page.json', JSON.stringify({ FormSets: { f: { s: { Type: 'Seal', Location: { PageNumber: 3 } } } } }))],
      /^FormSets\.f\.s\.Location: PageNumber 3 is beyond the document, which has 2 pages$/,
    ],
  ];
  it.each(badInputs)('exits 2 with a clear message on %s, leaving no output behind', async (_name, inputs, message) => {
    const [pdf, json] = await inputs();
    const out = join(dir, 'bad-out', 'out.pdf');
    const { code, stdout, stderr } = await place([pdf, json, '-o', out, '--json']);
    expect(stdout).toBe('');
    // With --json the error is one JSON line: its documented code and the message.
    const { error } = JSON.parse(stderr) as { error: { code: string; message: string } };
    expect(error.code).toMatch(/^[A-Z][A-Z_]+$/);
    expect(error.message).toMatch(message);
    expect(stderr).not.toMatch(/internal error|\n\s+at /);
    expect(code).toBe(2);
    await expect(readFile(out)).rejects.toThrow(/ENOENT/);
  });

  it('keeps an existing output file intact when placing fails, and leaves no temporary file', async () => {
    const out = await file('existing-out.pdf', 'previous content');
    const bad = await file('bad-search.json', JSON.stringify({ FormSets: { f: { s: { Type: 'Check', Location: { Search: 'absent' } } } } }));
    expect((await place([contract, bad, '-o', out])).code).toBe(2);
    expect(await readFile(out, 'utf8')).toBe('previous content');
    expect((await place([contract, metadata, '-o', out])).code).toBe(0);
    expect((await readFile(out)).subarray(0, 5).toString()).toBe('%PDF-');
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('exits 2 when the output cannot be written', async () => {
    const blocker = await file('blocker', 'a file, not a directory');
    const { code, stderr } = await place([contract, metadata, '-o', join(blocker, 'out.pdf')]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^[A-Z_]+: Cannot write ".*blocker\/out\.pdf": (ENOTDIR|EEXIST)\. Choose another -o path\.\n$/);
  });

  it('runs through the real `paraph` entry point: exit 0 on the sample, 2 on garbage', async () => {
    const out = join(dir, 'child.pdf');
    const ok = await exec(process.execPath, ['--import', TSX_LOADER, CLI, 'place', contract, metadata, '-o', out, '--json']);
    expect((JSON.parse(ok.stdout) as unknown[]).length).toBe(6);
    const garbage = await file('child-garbage.pdf', 'garbage');
    const failed = await exec(process.execPath, ['--import', TSX_LOADER, CLI, 'place', garbage, metadata, '-o', out]).catch((e: { code: number; stderr: string }) => e);
    expect((failed as { code: number }).code).toBe(2);
    expect((failed as { stderr: string }).stderr).toMatch(/The file is not a PDF/);
  });
});

async function encrypted(): Promise<string> {
  const path = join(dir, 'encrypted.pdf');
  await exec('qpdf', ['--encrypt', 'user', 'owner', '256', '--', contract, path]);
  return path;
}

/** A syntactically valid PDF whose page tree has no pages. */
function zeroPagePdf(): string {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 0 >>'];
  let body = '%PDF-1.7\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) body += `${String(off).padStart(10, '0')} 00000 n \n`;
  return `${body}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
}
