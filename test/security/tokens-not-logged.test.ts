/**
 * The signer's token is a credential, and SignUrl, ShowUrl, ReceiptUrl and the signer API all carry the same one:
 * a real `paraph serve` logging every request (info) writes none of these paths with the token in its log.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { makePdf, spawnServe, type ServeProcess } from '../helpers/service-harness.js';

const served: ServeProcess[] = [];
afterAll(async () => {
  for (const s of served) await s.dispose();
});

describe('request logs', () => {
  it('never hold the token of a SignUrl, ShowUrl, ReceiptUrl or signer API path', async () => {
    const serve = await spawnServe({ env: { PARAPH_LOG_LEVEL: 'info' } });
    served.push(serve);
    const created = await serve.call('POST', '/api/transaction', { json: { Signers: [{ SendSignRequest: false, Email: 'signer@example.com' }] } });
    const id = created.json.Id as string;
    const signer = created.json.Signers[0] as { SignUrl: string; ShowUrl?: string; ReceiptUrl?: string };
    const token = signer.SignUrl.split('/sign/')[1]!;
    await serve.call('PUT', `/api/transaction/${id}/file/a.pdf`, { body: await makePdf([['Contract']]), headers: { 'content-type': 'application/pdf' } });
    expect((await serve.call('PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    const shown = await serve.call('GET', `/api/transaction/${id}`);
    const urls = [shown.json.Signers[0].SignUrl, shown.json.Signers[0].ShowUrl, shown.json.Signers[0].ReceiptUrl].filter((u): u is string => typeof u === 'string');
    expect(urls.length).toBe(3);
    for (const url of urls) expect(url).toContain(token);
    const paths = [...urls.map((u) => new URL(u).pathname), `/show/${token}/file/a.pdf?download=1`, `/api/signer/${token}`, `/api/signer/${token}/verification`];
    for (const path of paths) await serve.call('GET', path, { auth: false });
    // Each request is logged (its redacted path is in the log), and the token never is.
    await new Promise((r) => setTimeout(r, 200));
    expect(serve.output()).toContain('/show/[token]');
    expect(serve.output()).toContain('/receipt/[token]');
    expect(serve.output()).not.toContain(token);
  }, 120_000);
});
