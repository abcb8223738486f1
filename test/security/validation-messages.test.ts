/**
 * Against a real `paraph serve`, JSON routes name JSON (not PDF) when
 * the Content-Type is wrong, every refusal and unknown route is a `{"Message"}` object, and an SMS one-time code is
 * never written to the log by default (only that one was created). A PDF that passes upload also passes start.
 * (fileId `.`/`..` and bidi characters are the
 * API-clients work's test; the upload-time checks are in quotas-and-uploads.test.ts.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { makePdf, spawnServe, type ServeProcess } from '../helpers/service-harness.js';

const served: ServeProcess[] = [];
afterAll(async () => {
  for (const s of served) await s.dispose();
});

describe('validation and messages', () => {
  it('names application/json on JSON routes, answers {"Message"} everywhere, and logs no SMS code', async () => {
    const serve = await spawnServe({ env: { PARAPH_LOG_LEVEL: 'info' } });
    served.push(serve);
    const wrongType = await serve.call('POST', '/api/transaction', { body: '{"Seal":true}', headers: { 'content-type': 'text/plain' } });
    expect(wrongType.status).toBe(415);
    expect(Object.keys(wrongType.json)).toEqual(['Message']);
    expect(wrongType.json.Message).toContain('application/json');
    expect(wrongType.json.Message).not.toContain('application/pdf');
    const signerType = await serve.call('POST', '/api/signer/abcdefghijklmnopqrstuvwx/verification', { auth: false, body: 'x', headers: { 'content-type': 'text/plain' } });
    expect(signerType.json.Message).not.toContain('application/pdf');

    for (const [method, path] of [['GET', '/nope'], ['GET', '/api/transaction/00000000-0000-0000-0000-000000000000'], ['POST', '/api/transaction'], ['GET', '/api/signer/short']] as const) {
      const answer = await serve.call(method, path, method === 'POST' ? { body: '{', headers: { 'content-type': 'application/json' } } : {});
      expect([path, answer.status < 500, Object.keys(answer.json ?? {})]).toEqual([path, true, ['Message']]);
    }

    // Upload runs the checks start needs.
    const onePage = await makePdf([['One page']]);
    const put = (id: string, fileId: string, body: Uint8Array) =>
      serve.call('PUT', `/api/transaction/${id}/file/${fileId}`, { body, headers: { 'content-type': 'application/pdf' } });
    // Readable by pdf-lib and pdf.js, but its startxref is off, so start could not append the signature fields to it
    // as it is: the upload either refuses it (and keeps nothing) or accepts a document that start then prepares.
    const text = Buffer.from(onePage).toString('latin1');
    const shifted = new Uint8Array(Buffer.from(text.replace('/MediaBox [ 0 0 595 842 ]', '/MediaBox [ 0 0 595 842 ] /Rotate 0'), 'latin1'));
    const other = (await serve.call('POST', '/api/transaction', { json: { Seal: true } })).json.Id as string;
    const unpreparable = await put(other, 'shifted.pdf', shifted);
    if (unpreparable.status === 400) {
      expect(unpreparable.json.Message).toMatch(/^The PDF cannot be prepared for signing: /);
    } else {
      expect(unpreparable.status).toBe(201);
      expect((await serve.call('PUT', `/api/transaction/${other}/start`)).status).toBe(204);
    }

    const created = await serve.call('POST', '/api/transaction', {
      json: { Seal: true, Signers: [{ SendSignRequest: false, Email: 'p@example.com', Verifications: [{ Type: 'PhoneNumber', Number: '+31612345678' }, { Type: 'Scribble' }] }] },
    });
    expect(created.status, created.text).toBe(200);
    const id = created.json.Id as string;
    const token = (created.json.Signers[0].SignUrl as string).split('/sign/')[1] as string;
    const pdf = await makePdf([['Contract']]);
    expect((await serve.call('PUT', `/api/transaction/${id}/file/c.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } })).status).toBe(201);
    expect((await serve.call('PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    const sent = await serve.call('POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: 'PhoneNumber' } });
    expect(sent.json).toMatchObject({ CodeSent: true });
    const deadline = Date.now() + 10_000;
    while (!serve.output().includes('SMS verification code created') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const lines = serve.output().split('\n').filter((l) => l.includes('"outbox":"sms"'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).not.toHaveProperty('code');
    expect(lines[0]).not.toContain('+31612345678');
  }, 180_000);
});
