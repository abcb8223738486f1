/**
 * An admin's PKCS#12 file is opened in a worker thread within the PKCS#12 limits: a file asking for millions of
 * key-derivation iterations is refused with PKCS12_TOO_COSTLY before any is run, a normal one is accepted, and the
 * service answers other requests while a file is being opened.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { derToPem } from '../../src/pades/keys/ca.js';
import { createCertificateAuthority, issueSigningIdentity } from '../../src/pades/keys/identity.js';
import { call, startTestService, TestClock, type ApiResponse, type TestService } from '../helpers/service-harness.js';
import { scratchFiles } from '../helpers/scratch-files.js';

/** PKCS#12 threads that have loaded node-forge and got their file (the thread says `ready`). */
const opening = vi.hoisted(() => ({ started: 0, onStart: undefined as (() => void) | undefined }));
vi.mock('node:worker_threads', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:worker_threads')>();
  class ObservedWorker extends original.Worker {
    constructor(...args: ConstructorParameters<typeof original.Worker>) {
      super(...args);
      if (String(args[0]).includes('pkcs12-worker')) {
        this.on('message', (reply: { kind?: unknown }) => {
          if (reply.kind !== 'ready') return;
          opening.started += 1;
          // After the host's own 'message' listener has handed the file over.
          setImmediate(() => opening.onStart?.());
        });
      }
    }
  }
  return { ...original, Worker: ObservedWorker };
});

const ADMIN_TOKEN = 'admin-token-0123456789-0123456789-abcdef';
const validity = { notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2030-01-01T00:00:00Z') };
const { dir, file } = scratchFiles('seal-p12');
let service: TestService;
let accountId: string;
let key: string;
let certificate: string;

/** A PKCS#12 file (base64) of the seal key written by OpenSSL with `iterations` (its default when undefined). */
function pkcs12(password: string, iterations?: number): Buffer {
  const out = join(dir, `seal-${iterations ?? 'default'}.p12`);
  execFileSync('openssl', ['pkcs12', '-export', '-inkey', key, '-in', certificate, '-passout', `pass:${password}`, '-out', out, ...(iterations ? ['-iter', String(iterations)] : [])]);
  return readFileSync(out);
}

function admin(method: string, path: string, json?: unknown): Promise<ApiResponse> {
  return call(service.url, method, `/api/admin${path}`, { auth: false, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, ...(json !== undefined ? { json } : {}) });
}

beforeAll(async () => {
  const qtsp = await createCertificateAuthority({ subject: { organization: 'Test QTSP', commonName: 'Test QTSP Seal CA' }, kind: 'ecdsa-p256', serialNumber: 1n, ...validity });
  const seal = await issueSigningIdentity({ issuer: qtsp, subject: { organization: 'Omega NV', commonName: 'Omega Qualified Seal' }, profile: 'seal', serialNumber: 2n, ...validity });
  key = file(derToPem(seal.pkcs8, 'PRIVATE KEY'));
  certificate = file(derToPem(seal.certificate, 'CERTIFICATE'));
  service = await startTestService({ clock: new TestClock('2026-11-21T10:00:00.000Z'), env: { PARAPH_ADMIN_TOKEN: ADMIN_TOKEN } });
  const created = await admin('POST', '/accounts', { Name: 'Omega NV' });
  expect(created.status, created.text).toBe(201);
  accountId = created.json.Id as string;
}, 60_000);

afterAll(async () => {
  await service?.dispose();
});

describe("an admin's PKCS#12 seal", () => {
  it('is refused with PKCS12_TOO_COSTLY when it asks for millions of iterations, before the work, and nothing is stored', async () => {
    // OpenSSL writes `-iter 40000` as 02 03 00 9c 40; the same length holds 8,388,607 (the key's count).
    const bytes = pkcs12('pw-hostile', 40_000);
    const at = bytes.indexOf(Buffer.from('0203009c40', 'hex'), bytes.indexOf(Buffer.from('0203009c40', 'hex')) + 1);
    Buffer.from('02037fffff', 'hex').copy(bytes, at);
    const refused = await admin('PUT', `/accounts/${accountId}/qualified-seal`, { Kind: 'Pkcs12', Pkcs12: bytes.toString('base64'), Password: 'pw-hostile' });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.Message).toMatch(/8,388,607 key-derivation iterations/);
    expect(refused.json.Message).toMatch(/-iter 2048/);
    expect((await admin('GET', `/accounts/${accountId}`)).json.QualifiedSeal).toBeUndefined();
    const audit = await admin('GET', `/audit?accountId=${accountId}`);
    expect(audit.json.at(-1)).toMatchObject({ Action: 'account.qualified-seal-refused', Data: { code: 'PKCS12_TOO_COSTLY' } });
  });

  it('is opened off the serving thread: /health answers while the file is being opened, then the seal is set', async () => {
    // 60,000 iterations for the MAC, the certificates and the key: within the limits, and a second or so of forge.
    const body = { Kind: 'Pkcs12', Pkcs12: pkcs12('pw-good', 60_000).toString('base64'), Password: 'pw-good' };
    let settled = false;
    let observed: (seen: { status: number | 'no thread started'; putSettled: boolean }) => void = () => undefined;
    const healthWhileOpening = new Promise<{ status: number | 'no thread started'; putSettled: boolean }>((resolve) => (observed = resolve));
    opening.onStart = () => {
      opening.onStart = undefined;
      void call(service.url, 'GET', '/health', { auth: false }).then((r) => observed({ status: r.status, putSettled: settled }));
    };
    const before = opening.started;
    const set = admin('PUT', `/accounts/${accountId}/qualified-seal`, body).finally(() => {
      settled = true;
      observed({ status: 'no thread started', putSettled: true });
    });
    expect(await healthWhileOpening).toEqual({ status: 200, putSettled: false });
    const answer = await set;
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.QualifiedSeal).toMatchObject({ Kind: 'Pkcs12', Certificate: { Subject: expect.stringContaining('Omega Qualified Seal') } });
    expect(opening.started).toBe(before + 1);
  }, 60_000);

  it('accepts what OpenSSL writes by default', async () => {
    const set = await admin('PUT', `/accounts/${accountId}/qualified-seal`, { Kind: 'Pkcs12', Pkcs12: pkcs12('pw-default').toString('base64'), Password: 'pw-default' });
    expect(set.status, set.text).toBe(200);
  });
});
