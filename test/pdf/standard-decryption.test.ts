/**
 * paraph's own decryption with the empty password (standard-decryption.ts), used where PDFium refuses a file other
 * readers open: for every revision qpdf writes (RC4 40 and 128 bits, AES-128, AES-256) with an empty user password,
 * the decrypted copy is unencrypted and shows the same text and metadata as the original; a file whose passwords are
 * both real is left alone. Objects kept in object streams are read once their stream is decrypted. (qpdf gives a file with an empty owner password the user password as owner password; the
 * empty owner password of an AES-256 file is tested on pdf.js's pr6531_2.pdf in normalize-pdfjs.test.ts.)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDFDocument, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { decryptedCopy } from '../../src/pdf/standard-decryption.js';

const TEXT = 'Decrypted with the empty password';
let dir: string;
let plain: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paraph-decrypt-'));
  const doc = await PDFDocument.create();
  doc.setTitle('Encrypted title');
  const page = doc.addPage([400, 200]);
  page.drawText(TEXT, { x: 20, y: 100, size: 14, font: await doc.embedFont(StandardFonts.Helvetica) });
  plain = join(dir, 'plain.pdf');
  writeFileSync(plain, await doc.save({ useObjectStreams: false }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `plain.pdf` encrypted by qpdf with the given user and owner passwords and key options. */
function encrypted(name: string, user: string, owner: string, bits: string, ...options: string[]): Uint8Array {
  const out = join(dir, name);
  const objectStreams = options.includes(OBJECT_STREAMS) ? '--object-streams=generate' : '--object-streams=disable';
  const keyOptions = options.filter((o) => o !== OBJECT_STREAMS);
  execFileSync('qpdf', ['--allow-weak-crypto', objectStreams, '--encrypt', user, owner, bits, ...keyOptions, '--', plain, out]);
  return new Uint8Array(readFileSync(out));
}

function text(pdf: Uint8Array): string {
  const path = join(dir, 'check.pdf');
  writeFileSync(path, pdf);
  return execFileSync('pdftotext', [path, '-'], { encoding: 'utf8' });
}

/** Marks a case whose objects qpdf puts in object streams (encrypted as part of their stream only). */
const OBJECT_STREAMS = 'object-streams';

const CASES: [string, string, string, ...string[]][] = [
  ['RC4 40 bits (revision 2)', '40'],
  ['RC4 128 bits (revision 3)', '128', '--use-aes=n'],
  ['AES-128 (revision 4)', '128', '--use-aes=y'],
  ['AES-128 (revision 4), metadata in clear', '128', '--use-aes=y', '--cleartext-metadata'],
  ['AES-256 (revision 6)', '256'],
  ['RC4 128 bits (revision 3), object streams', '128', '--use-aes=n', OBJECT_STREAMS],
  ['AES-128 (revision 4), object streams, metadata in clear', '128', '--use-aes=y', '--cleartext-metadata', OBJECT_STREAMS],
  ['AES-256 (revision 6), object streams', '256', OBJECT_STREAMS],
].map(([label, ...options]) => [label!, ...options] as [string, string, string, ...string[]]);

describe('decryption with the empty password', () => {
  for (const [label, bits, ...options] of CASES) {
    it(`${label}: its strings and streams read as before encryption`, async () => {
      const copy = await decryptedCopy(encrypted(`${label}.pdf`, '', 'owner-secret', bits, ...options));
      expect(copy).toBeDefined();
      const doc = await PDFDocument.load(copy!, { updateMetadata: false });
      expect(doc.isEncrypted).toBe(false);
      expect(doc.getTitle()).toBe('Encrypted title');
      expect(text(copy!)).toContain(TEXT);
    });
  }

  it('a file whose user and owner passwords are both real is not opened', async () => {
    expect(await decryptedCopy(encrypted('both.pdf', 'user-secret', 'owner-secret', '256'))).toBeUndefined();
    expect(await decryptedCopy(encrypted('both-rc4.pdf', 'user-secret', 'owner-secret', '128', '--use-aes=n'))).toBeUndefined();
  });

  it('an unencrypted file is not touched', async () => {
    expect(await decryptedCopy(new Uint8Array(readFileSync(plain)))).toBeUndefined();
  });
});
