/**
 * `paraph account seal …` on a data directory: a PKCS#12 qualified seal set from the command line (password on
 * stdin, never an argument) is checked first, stored with its secrets sealed, audited as cli without them, survives a
 * master key rotation, and can be removed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCommandWith } from '../../src/cli/account.js';
import { runCommand } from '../../src/cli/common.js';
import { derToPem } from '../../src/pades/keys/ca.js';
import { createCertificateAuthority, issueSigningIdentity } from '../../src/pades/keys/identity.js';
import { openQualifiedSealKey } from '../../src/service/keys/account-seals.js';
import { openServiceStore } from '../../src/store/open-store.js';
import { rotateMasterKey } from '../../src/store/protected-store.js';

const PASSWORD = 'p12-password-for-cli';
let dataDir: string;
let p12Path: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'paraph-account-seal-cli-'));
  await (await openServiceStore({ dataDir })).store.close();
  const validity = { notBefore: new Date(Date.now() - 86_400_000), notAfter: new Date(Date.now() + 365 * 86_400_000) };
  const ca = await createCertificateAuthority({ subject: { organization: 'CLI QTSP', commonName: 'CLI QTSP CA' }, kind: 'ecdsa-p256', serialNumber: 1n, ...validity });
  const seal = await issueSigningIdentity({ issuer: ca, subject: { organization: 'Acme BV', commonName: 'Acme BV Seal' }, profile: 'seal', serialNumber: 2n, ...validity });
  const keyPath = join(dataDir, 'seal.key.pem');
  const certPath = join(dataDir, 'seal.crt');
  writeFileSync(keyPath, derToPem(seal.pkcs8, 'PRIVATE KEY'));
  writeFileSync(certPath, derToPem(seal.certificate, 'CERTIFICATE'));
  p12Path = join(dataDir, 'seal.p12');
  execFileSync('openssl', ['pkcs12', '-export', '-inkey', keyPath, '-in', certPath, '-passout', `pass:${PASSWORD}`, '-out', p12Path]);
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function cli(secret: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCommand(accountCommandWith(async () => secret), [...args, '--data-dir', dataDir, '--json'], { stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

describe('paraph account seal', () => {
  it('sets a checked PKCS#12 seal with its secrets sealed, keeps it through a master key rotation, removes it', async () => {
    const id = JSON.parse((await cli('', 'create', '--name', 'Acme BV')).out).Id as string;
    const wrong = await cli('not-the-password', 'seal', 'set', id, '--pkcs12', p12Path);
    expect(wrong.code).not.toBe(0);
    expect(wrong.err).toMatch(/password is wrong/);
    const set = await cli(PASSWORD, 'seal', 'set', id, '--pkcs12', p12Path);
    expect(set.code, set.err).toBe(0);
    expect(JSON.parse(set.out).QualifiedSeal.Certificate.Subject).toContain('Acme BV Seal');

    await rotateMasterKey({ dataDir });
    const opened = await openServiceStore({ dataDir });
    try {
      const account = await opened.store.getAccount(id);
      expect(JSON.stringify(account)).not.toContain(PASSWORD);
      const signer = await openQualifiedSealKey(account!.QualifiedSeal!, opened.masterKey);
      expect(signer.certificateChain).toHaveLength(1);
      const audit = await opened.store.listAdminAudit({ limit: 100, accountId: id });
      expect(audit.map((e) => [e.actor, e.action])).toEqual([
        ['cli', 'account.created'],
        ['cli', 'account.qualified-seal-refused'],
        ['cli', 'account.qualified-seal-set'],
      ]);
      expect(JSON.stringify(audit)).not.toContain(PASSWORD);
    } finally {
      await opened.store.close();
    }
    const removed = await cli('', 'seal', 'remove', id);
    expect(removed.code, removed.err).toBe(0);
    const after = await openServiceStore({ dataDir });
    try {
      expect((await after.store.getAccount(id))?.QualifiedSeal).toBeUndefined();
    } finally {
      await after.store.close();
    }
  }, 60_000);
});
