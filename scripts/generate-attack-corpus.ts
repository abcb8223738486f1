/**
 * Writes the attack corpus (test/pades/attack-corpus.ts) to fixtures/attacks/: one PDF per attack variant and per
 * honest control, a manifest.json with the verdict a correct verifier gives (and pyHanko's recorded verdicts, kept
 * from the previous manifest), and the trust root to verify with.
 * Run: npx tsx scripts/generate-attack-corpus.ts
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildAttackCorpus } from '../test/pades/attack-corpus.js';

const PKI = join(import.meta.dirname, '..', 'fixtures', 'pki');
const OUT = join(import.meta.dirname, '..', 'fixtures', 'attacks');

const cases = buildAttackCorpus({
  signer: { certPath: join(PKI, 'signer-p256.pem'), keyPath: join(PKI, 'signer-p256.key.pem'), chainPaths: [join(PKI, 'intermediate-ca.pem')] },
  tsa: { certPath: join(PKI, 'tsa.pem'), keyPath: join(PKI, 'tsa.key.pem'), chainPath: join(PKI, 'intermediate-ca.pem') },
});
mkdirSync(OUT, { recursive: true });
const previous = (() => {
  try {
    return JSON.parse(readFileSync(join(OUT, 'manifest.json'), 'utf8')) as { pyhanko?: string; files: { file: string; pyhanko?: string }[] };
  } catch {
    return { files: [] };
  }
})();
for (const c of cases) writeFileSync(join(OUT, c.file), c.bytes);
copyFileSync(join(PKI, 'root-ca.pem'), join(OUT, 'root.pem'));
const manifest = {
  about: 'PDF-signature attacks and honest controls; verify each with: paraph verify --trust root.pem --json <file>. Made by scripts/generate-attack-corpus.ts.',
  // How pyHanko's verdicts below were obtained (kept from the previous manifest; the corpus is judged by hand with it).
  pyhanko: previous.pyhanko ?? 'pending',
  files: cases.map(({ bytes: _bytes, ...c }) => ({ ...c, pyhanko: previous.files.find((p) => p.file === c.file)?.pyhanko ?? 'pending' })),
};
writeFileSync(join(OUT, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`wrote ${cases.length} files to ${OUT}`);
