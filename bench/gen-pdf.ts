/**
 * Benchmark inputs: contract-like text PDFs of any page count, generated on demand into bench/.cache/ (git-ignored)
 * and reused between runs. Each A4 page holds ~45 lines (~3,400 characters) of pseudo-random words in Helvetica
 * with every fifth line in the embedded DejaVu Sans (CID), a `{{Signer1}}` tag, and a page-unique anchor
 * `{{P<n>}}` (so 100 distinct Search locations can be resolved on any document of ≥ 100 pages).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';
import { loadBundledFont } from '../src/pdf/fonts.js';
import { BENCH_CACHE } from './lib.js';

const WORDS =
  'agreement party client provider services term notice payment invoice schedule liability warranty law court data privacy confidential obligation period renewal fee delivery acceptance termination breach remedy dispute clause annex signature date name address'.split(
    ' ',
  );

function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Path of the cached `pages`-page benchmark PDF, generating it first when missing. */
export async function benchPdf(pages: number): Promise<string> {
  const path = join(BENCH_CACHE, `text-${pages}.pdf`);
  if (existsSync(path)) return path;
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  const helvetica = await doc.embedFont(StandardFonts.Helvetica);
  const dejavu = await doc.embedFont(await loadBundledFont('regular'), { subset: true, customName: 'PARAPH+DejaVuSans' });
  const resources = doc.context.obj({ Font: doc.context.obj({ F0: helvetica.ref, F1: dejavu.ref }) });
  const rnd = random(pages);
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
