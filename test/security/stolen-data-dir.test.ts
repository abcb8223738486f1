/**
 * A copy of the data directory without the master key (a stolen backup, a copied disk) must not let its holder sign,
 * read a document through the service or pass a signer's verification. A real `paraph serve` with a configured
 * PARAPH_MASTER_KEY and no SMTP (mails become files in `<data dir>/mail`) sends a sign request and an e-mail code;
 * then the directory is copied while it runs. The copy holds no SignUrl token (which is also the ShowUrl and
 * ReceiptUrl token), no code (in clear, or as a plain SHA-256 anyone could reverse by hashing all million codes),
 * in the database, its journal or the mail files; and a service started on the copy without the key refuses to
 * start. The code the signer got (read from the sealed mail with the key) is the right one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { cp, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, describe, expect, it } from 'vitest';
import { MAIL_FILE_PURPOSE, openSealedMail, SEALED_MAIL_SUFFIX } from '../../src/events/mail-transport.js';
import { createMasterKey, parseMasterKey } from '../../src/store/master-key.js';
import { makePdf, type ServeProcess, spawnServe, tempDataDir } from '../helpers/service-harness.js';

const dirs: string[] = [];
const served: ServeProcess[] = [];
afterAll(async () => {
  for (const s of served) await s.stop();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  return out;
}

async function filesContaining(files: readonly string[], needle: string): Promise<string[]> {
  const hits: string[] = [];
  for (const file of files) if ((await readFile(file)).includes(Buffer.from(needle, 'utf8'))) hits.push(file);
  return hits;
}

/** The mails the service has written so far, opened with the key (bounded wait for `count` of them). */
async function mails(dataDir: string, key: string, count: number): Promise<string[]> {
  const master = createMasterKey(parseMasterKey(key));
  for (let i = 0; i < 300; i++) {
    const names = (await readdir(join(dataDir, 'mail')).catch(() => [] as string[])).filter((f) => f.endsWith(SEALED_MAIL_SUFFIX));
    if (names.length >= count) {
      return Promise.all(names.map(async (n) => {
        const eml = openSealedMail(await readFile(join(dataDir, 'mail', n), 'utf8'), (s) => master.open(s, MAIL_FILE_PURPOSE));
        return (await simpleParser(eml)).text ?? '';
      }));
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`fewer than ${count} mails were written`);
}

describe('a copy of the data directory without the master key', () => {
  it('holds no sign token and no verification code, and cannot be started', async () => {
    const dataDir = await tempDataDir();
    const copy = await tempDataDir();
    dirs.push(dataDir, copy);
    const key = randomBytes(32).toString('base64');
    const serve = await spawnServe({ dataDir, env: { PARAPH_MASTER_KEY: key } });
    served.push(serve);

    const created = await serve.call('POST', '/api/transaction', {
      json: { Signers: [{ Email: 'signer@example.com', SendSignRequest: true, SignRequestMessage: 'Please sign', Verifications: [{ Type: 'Email' }] }] },
    });
    expect(created.status, created.text).toBe(200);
    const id = created.json.Id as string;
    const token = (created.json.Signers[0].SignUrl as string).split('/sign/')[1]!;
    const pdf = await makePdf([['Contract']]);
    expect((await serve.call('PUT', `/api/transaction/${id}/file/a.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } })).status).toBe(201);
    expect((await serve.call('PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    expect((await serve.call('POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: 'Email' } })).json).toMatchObject({ CodeSent: true });
    const texts = await mails(dataDir, key, 2);
    expect(texts.some((t) => t.includes(token))).toBe(true);
    const code = /\b(\d{6})\b/.exec(texts.find((t) => !t.includes(token)) ?? '')?.[1];
    expect(code).toMatch(/^\d{6}$/);

    await cp(dataDir, copy, { recursive: true });
    const files = await filesUnder(copy);
    expect(files.some((f) => f.endsWith('paraph.db'))).toBe(true);
    expect(files.filter((f) => f.endsWith(SEALED_MAIL_SUFFIX))).toHaveLength(2);
    // The SignUrl token (also the ShowUrl and ReceiptUrl token) is nowhere in clear.
    expect(await filesContaining(files, token)).toEqual([]);
    // The code: not in clear in the database or the mails, not as its plain SHA-256 (the documents are PDFs the
    // signer is shown anyway; six digits in their byte soup would be chance, so they are left out of this search).
    const notDocuments = files.filter((f) => !f.includes(`${join(copy, 'blobs')}`));
    expect(await filesContaining(notDocuments, code!)).toEqual([]);
    expect(await filesContaining(files, createHash('sha256').update(code!).digest('hex'))).toEqual([]);

    // Without the key the copy does not start (a new key is generated and does not open the secrets).
    const refused = await spawnServe({ zeroConfig: true, dataDir: copy, port: 0, env: { PARAPH_DATA_DIR: copy, HOST: '127.0.0.1' }, until: 'exit' });
    expect(await refused.exited).toBe(2);
    const out = refused.output();
    expect(out).toContain('is not the key this data directory');

    // The code the signer received is the right one: the real service accepts it.
    expect((await serve.call('POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: 'Email', Code: code } })).json).toMatchObject({ Done: true });
    expect(await serve.stop()).toBe(0);
  }, 180_000);
});
