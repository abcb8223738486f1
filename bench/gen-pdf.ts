/**
 * Benchmark inputs: contract-like text PDFs of any page count, generated on demand into bench/.cache/ (git-ignored)
 * and reused between runs. Each A4 page holds ~45 lines (~3,400 characters) of pseudo-random words in Helvetica
 * with every fifth line in the embedded DejaVu Sans (CID), a `{{Signer1}}` tag, and a page-unique anchor
 * `{{P<n>}}` (so 100 distinct Search locations can be resolved on any document of ≥ 100 pages).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fontkit from '@pdf-lib/fontkit';
import { degrees, PDFDocument, PDFName, StandardFonts } from '../src/pdf/pdf-lib.js';
import { loadBundledFont } from '../src/pdf/fonts.js';
import { seededRandom } from '../src/testing/generate-pdf.js';
import { BENCH_CACHE } from './lib.js';

const WORDS =
  'agreement party client provider services term notice payment invoice schedule liability warranty law court data privacy confidential obligation period renewal fee delivery acceptance termination breach remedy dispute clause annex signature date name address'.split(
    ' ',
  );

/** Path of the cached `pages`-page benchmark PDF, generating it first when missing. */
export async function benchPdf(pages: number): Promise<string> {
  const path = join(BENCH_CACHE, `text-${pages}.pdf`);
  if (existsSync(path)) return path;
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  const helvetica = await doc.embedFont(StandardFonts.Helvetica);
  const dejavu = await doc.embedFont(await loadBundledFont('regular'), { subset: true, customName: 'PARAPH+DejaVuSans' });
  const resources = doc.context.obj({ Font: doc.context.obj({ F0: helvetica.ref, F1: dejavu.ref }) });
  const rnd = seededRandom(pages);
  for (let p = 1; p <= pages; p++) {
    const page = doc.addPage([595, 842]);
    const ops: string[] = ['BT', '/F0 10 Tf', '13 TL', '60 790 Td'];
    for (let l = 0; l < 45; l++) {
      let text = '';
      while (text.length < 72) text += `${WORDS[Math.floor(rnd() * WORDS.length)]} `;
      if (l === 20) text = `Page anchor {{P${p}}} ${text}`;
      if (l === 40) text = `Signature: {{Signer1}} ${text}`;
      const dejavuLine = l % 5 === 4;
      const font = dejavuLine ? dejavu : helvetica;
      ops.push(`${dejavuLine ? '/F1' : '/F0'} 10 Tf ${font.encodeText(text.trim()).toString()} Tj T*`);
    }
    ops.push('ET');
    page.node.set(PDFName.of('Resources'), resources);
    page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream(ops.join('\n'))));
  }
  writeFileSync(path, await doc.save());
  return path;
}

/**
 * Path of the cached `pages`-page mixed contract, generating it first: like {@link benchPdf}'s text, but
 * every page mixes Helvetica, Times, Courier and the embedded DejaVu Sans, every 7th page has /Rotate 90 (and every
 * 14th /Rotate 270), every 5th page a CropBox offset inside a larger MediaBox, and text drawn with Tc, Tz and TJ kerning.
 */
export async function mixedContractPdf(pages: number): Promise<string> {
  const path = join(BENCH_CACHE, `mixed-${pages}.pdf`);
  if (existsSync(path)) return path;
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  const fonts = [
    await doc.embedFont(StandardFonts.Helvetica),
    await doc.embedFont(StandardFonts.TimesRoman),
    await doc.embedFont(StandardFonts.Courier),
    await doc.embedFont(await loadBundledFont('regular'), { subset: true, customName: 'PARAPH+DejaVuSans' }),
  ];
  const resources = doc.context.obj({ Font: doc.context.obj(Object.fromEntries(fonts.map((f, i) => [`F${i}`, f.ref]))) });
  const rnd = seededRandom(pages + 1);
  for (let p = 1; p <= pages; p++) {
    const page = doc.addPage([595, 842]);
    const ops: string[] = ['BT', '13 TL', '60 790 Td'];
    for (let l = 0; l < 45; l++) {
      let text = '';
      while (text.length < 64) text += `${WORDS[Math.floor(rnd() * WORDS.length)]} `;
      if (l === 20) text = `Page anchor {{P${p}}} ${text}`;
      if (l === 40) text = `Signature: {{Signer1}} ${text}`;
      const f = l % 4;
      const shown = fonts[f]!.encodeText(text.trim()).toString();
      const style = l % 9 === 3 ? `0.4 Tc 90 Tz [${shown} -120 ${fonts[f]!.encodeText('.').toString()}] TJ 0 Tc 100 Tz` : `${shown} Tj`;
      ops.push(`/F${f} ${f === 2 ? 9 : 10} Tf ${style} T*`);
    }
    ops.push('ET');
    page.node.set(PDFName.of('Resources'), resources);
    page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream(ops.join('\n'))));
    if (p % 7 === 0) page.setRotation(degrees(p % 14 === 0 ? 270 : 90));
    if (p % 5 === 0) {
      page.setMediaBox(-40, -60, 700, 960);
      page.setCropBox(20, 30, 555, 812);
    }
  }
  writeFileSync(path, await doc.save());
  return path;
}

/**
 * Transpiles src/ to JavaScript in bench/.cache/dist/ (type-checking is `npm run typecheck`'s job) and returns that
 * directory, so benchmarks measure the library as shipped. Runs in a child process, keeping the TypeScript compiler
 * out of the benchmark's own memory figures.
 */
export function compileSrc(): string {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const out = join(BENCH_CACHE, 'dist');
  const script = `
    import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
    import { dirname, join, relative } from 'node:path';
    import ts from 'typescript';
    const [root, out] = process.argv.slice(1);
    const walk = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
    for (const file of walk(join(root, 'src'))) {
      const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
        fileName: file,
      });
      const target = join(out, relative(root, file)).replace(/[.]ts$/, '.js');
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, outputText);
    }`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script, root, out], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) throw new Error('compiling src/ for the benchmark failed');
  return out;
}
