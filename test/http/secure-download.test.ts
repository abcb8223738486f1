/**
 * SecureDownload (docs/design/signer-api.md#authentications): a signer whose authentication has `SecureDownload: true`
 * is asked for it again for downloads after signing — a fresh one-time code (the same rules as the verification codes)
 * opens the downloads for 10 minutes; signers without SecureDownload are not asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/service-harness.js';
import { createSigningTransaction, startSignerService, type SignerService } from '../service/signer/signer-fixture.js';

let s: SignerService;
let base: string;
const signer = (token: string, method: string, path: string, json?: unknown) =>
  call(base, method, `/api/signer/${token}${path}`, { auth: false, headers: { 'user-agent': 'SecureDownloadTest/1.0' }, ...(json !== undefined ? { json } : {}) });

beforeAll(async () => {
  s = await startSignerService();
  base = s.service.url;
});
afterAll(async () => {
  await s.service.dispose();
});

async function authenticateAndSign(token: string, signerId: string, index: number): Promise<void> {
  expect((await signer(token, 'POST', '/verification', { Type: 'PhoneNumber' })).status).toBe(200);
  const authenticated = await signer(token, 'POST', '/verification', { Type: 'PhoneNumber', Code: s.smsCode(signerId) });
  expect(authenticated.status, authenticated.text).toBe(200);
  expect((await signer(token, 'POST', '/verification', { Type: 'Consent' })).status).toBe(200);
  const signed = await signer(token, 'POST', '/sign', { Fields: { contract: { [`f${index}.city`]: 'Epe' } } });
  expect(signed.status, signed.text).toBe(200);
}

describe('SecureDownload', () => {
  it('after signing, downloads need a fresh code (wrong code refused), open for 10 minutes; signers without it are not asked', async () => {
    const tx = await createSigningTransaction(base, {
      signers: [
        { Email: 'secure@example.com', Authentications: [{ Type: 'PhoneNumber', Number: '+31611112222', SecureDownload: true }], Verifications: [{ Type: 'Consent' }] },
        { Email: 'plain@example.com', Authentications: [{ Type: 'PhoneNumber', Number: '+31633334444' }], Verifications: [{ Type: 'Consent' }] },
      ],
    });
    const secure = tx.signers[0]!;
    const plain = tx.signers[1]!;

    // Before signing, the journey's authentication covers the downloads.
    expect((await signer(secure.token, 'POST', '/verification', { Type: 'PhoneNumber' })).status).toBe(200);
    expect((await signer(secure.token, 'POST', '/verification', { Type: 'PhoneNumber', Code: s.smsCode('Signer1') })).status).toBe(200);
    expect((await signer(secure.token, 'GET', '/file/contract')).status).toBe(200);
    expect((await signer(secure.token, 'POST', '/verification', { Type: 'Consent' })).status).toBe(200);
    expect((await signer(secure.token, 'POST', '/sign', { Fields: { contract: { 'f1.city': 'Epe' } } })).status).toBe(200);

    // Signed, the transaction waits for the second signer: the download asks for the authentication again.
    const refused = await signer(secure.token, 'GET', '/file/contract');
    expect(refused.status).toBe(403);
    expect(refused.json.Message).toBe(
      'Confirm who you are again to download the signed documents: ask for a new code (POST verification {"Type": "PhoneNumber"}) and enter it; it opens the downloads for 10 minutes.',
    );
    expect((await signer(secure.token, 'GET', '')).json.SecureDownload).toEqual({ Type: 'PhoneNumber', CodeSent: false });

    await authenticateAndSign(plain.token, 'Signer2', 2);
    expect((await call(base, 'GET', `/api/transaction/${tx.id}`)).json.Status).toBe(30);
    // The signer without SecureDownload downloads the final document without a new code.
    const plainDownload = await signer(plain.token, 'GET', '/file/contract');
    expect(plainDownload.status).toBe(200);
    expect((await signer(plain.token, 'GET', '')).json).not.toHaveProperty('SecureDownload');
    expect((await signer(plain.token, 'POST', '/verification', { Type: 'PhoneNumber' })).status).toBe(409); // already signed

    // At 30: still refused without the fresh code; no code yet → entering one is refused.
    expect((await signer(secure.token, 'GET', '/file/annex')).status).toBe(403);
    expect((await signer(secure.token, 'POST', '/verification', { Type: 'PhoneNumber', Code: '123456' })).json.Message).toBe(
      'PhoneNumber: ask for a code first (send {"Type": "PhoneNumber"}).',
    );
    const sent = await signer(secure.token, 'POST', '/verification', { Type: 'PhoneNumber' });
    expect(sent.json).toEqual({ Type: 'PhoneNumber', Done: false, CodeSent: true, Remaining: ['PhoneNumber'] });
    expect((await signer(secure.token, 'POST', '/verification', { Type: 'PhoneNumber' })).status).toBe(429); // resend limit
    const code = s.smsCode('Signer1') as string;
    const wrong = await signer(secure.token, 'POST', '/verification', { Type: 'PhoneNumber', Code: code === '000000' ? '000001' : '000000' });
    expect(wrong.status).toBe(400);
    expect(wrong.json.Message).toBe('The code is not correct: check it and try again (4 attempts left).');
    expect((await signer(secure.token, 'GET', '/file/contract')).status).toBe(403);

    const right = await signer(secure.token, 'POST', '/verification', { Type: 'PhoneNumber', Code: code });
    expect(right.status, right.text).toBe(200);
    const until = new Date(s.service.clock.now().getTime() + 10 * 60_000).toISOString().replace('Z', '+00:00');
    expect(right.json).toEqual({ Type: 'PhoneNumber', Done: true, Remaining: [], DownloadUntil: until });
    const allowed = await signer(secure.token, 'GET', '/file/contract');
    expect(allowed.status).toBe(200);
    expect(Buffer.from(allowed.bytes).equals(Buffer.from(plainDownload.bytes))).toBe(true);
    expect((await signer(secure.token, 'GET', '/file/annex')).status).toBe(200);
    expect((await signer(secure.token, 'GET', '')).json.SecureDownload).toEqual({ Type: 'PhoneNumber', CodeSent: false, DownloadUntil: until });
    // The used code does not open the downloads a second time.
    expect((await signer(secure.token, 'POST', '/verification', { Type: 'PhoneNumber', Code: code })).status).toBe(400);

    // The window closes after 10 minutes; a new code opens it again.
    s.service.clock.advance(10 * 60_000);
    expect((await signer(secure.token, 'GET', '/file/contract')).status).toBe(403);
    expect((await signer(secure.token, 'POST', '/verification', { Type: 'PhoneNumber' })).status).toBe(200);
    expect((await signer(secure.token, 'POST', '/verification', { Type: 'PhoneNumber', Code: s.smsCode('Signer1') })).status).toBe(200);
    expect((await signer(secure.token, 'GET', '/file/contract')).status).toBe(200);

    const audit = await s.service.server.store.listAuditEntries(tx.id);
    const verifications = audit.filter((e) => e.type === 'verification.performed').map((e) => `${(e.data as { signerId: string }).signerId}:${(e.data as { verification: string }).verification}`);
    expect(verifications).toEqual([
      'Signer1:PhoneNumber (authentication)',
      'Signer1:Consent',
      'Signer2:PhoneNumber (authentication)',
      'Signer2:Consent',
      'Signer1:PhoneNumber (secure download)',
      'Signer1:PhoneNumber (secure download)',
    ]);
    expect(JSON.stringify(audit)).not.toContain(code);
  });

  it('a rejected transaction offers no download code', async () => {
    const tx = await createSigningTransaction(base, {
      signers: [
        { Email: 'secure2@example.com', Authentications: [{ Type: 'PhoneNumber', Number: '+31611115555', SecureDownload: true }], Verifications: [{ Type: 'Consent' }] },
        { Email: 'other@example.com', Verifications: [{ Type: 'Consent' }] },
      ],
    });
    const secure = tx.signers[0]!;
    const other = tx.signers[1]!;
    await authenticateAndSign(secure.token, 'Signer1', 1);
    expect((await signer(other.token, 'POST', '/reject', { Reason: 'no' })).status).toBe(202);
    const asked = await signer(secure.token, 'POST', '/verification', { Type: 'PhoneNumber' });
    expect(asked.status).toBe(410);
    expect(asked.json.Message).toBe('This transaction was rejected by a signer; it can no longer be signed.');
    expect((await signer(secure.token, 'GET', '/file/contract')).status).toBe(410);
  });
});
