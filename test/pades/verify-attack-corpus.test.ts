/**
 * The attack corpus in fixtures/attacks/ (made by scripts/generate-attack-corpus.ts): every attack is refused,
 * naming the rule its manifest gives, and every honest control is accepted.
 */
import { describe, expect, it } from 'vitest';
import { verifyPdf, type VerificationReport } from '../../src/pades/verify.js';
import { attackFile, readManifest } from './attack-corpus.js';
import { TEST_NOW } from '../helpers/test-now.js';

const manifest = readManifest();

const NOW = new Date(TEST_NOW);
const root = attackFile('root.pem');

/** Every refusal the report gives, wherever it is. */
function refusals(report: VerificationReport): string[] {
  return [...report.problems, ...report.signatures.flatMap((s) => [...s.problems, ...s.modifications.disallowed])];
}

describe('the attack corpus', () => {
  it('has attacks of every class and honest controls', () => {
    const classes = new Set(manifest.files.map((f) => f.class));
    for (const c of ['new fields and widgets', 'certification', 'document time-stamp', 'FieldMDP', 'replayed signature', '/Encrypt added', 'cross-reference ambiguity', 'control']) {
      expect(classes).toContain(c);
    }
  });

  for (const entry of manifest.files) {
    it(`${entry.file}: ${entry.expected}${entry.rule ? ` [${entry.rule}]` : ''} — ${entry.description}`, async () => {
      const report = await verifyPdf(attackFile(entry.file), { trustRoots: [root], now: NOW });
      if (entry.expected === 'valid') {
        expect(refusals(report)).toEqual([]);
        expect(report.valid).toBe(true);
      } else {
        expect(report.valid).toBe(false);
        const named = refusals(report).filter((r) => r.includes(`[${entry.rule}]`));
        expect(named, refusals(report).join('\n')).not.toEqual([]);
        // The refusal names the revision (or, for a signature-level rule, the object).
        expect(named.some((r) => /revision \d+|\d+ 0 R/.test(r))).toBe(true);
      }
    });
  }
});
