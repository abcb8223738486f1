/**
 * A Signhost-shaped client round trip: requests built the way the public Signhost clients build them —
 * PascalCase bodies with every optional property they fill, `Accept: application/vnd.signhost.v1+json`,
 * `Content-Type: application/json; charset=utf-8`, `Digest: SHA-256=…`, percent-encoded fileIds, `DaysToExpire: 0`,
 * `SignRequestMode: 0`, PUT start with a JSON Content-Type and an empty body — are accepted, and the responses carry
 * what the client sent plus version-1 nulls (version 2 omits them), with `SignRequestMode` 0 shown as 2 (its meaning,
 * docs/design/api.md#sign-requests). The byte-exact bodies of the real clients are replayed by test/clients/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_KEY, USER_TOKEN, digestHeader, makePdf, startTestService, type TestService } from '../helpers/service-harness.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
}, 60_000);

afterAll(async () => {
  await service?.dispose();
});

/** What SignhostAPIClient's HttpClient sends on every call. */
function clientHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return {
    Authorization: `APIKey ${USER_TOKEN}`,
    Application: `APPKey ${APP_KEY}`,
    Accept: 'application/vnd.signhost.v1+json',
    'User-Agent': 'SignhostClientLibrary/4.0.0',
    ...extra,
  };
}

describe('a Signhost-shaped client', () => {
  it('creates, uploads metadata and PDF under a percent-encoded fileId with Digest, starts, reads v1 and v2, cancels', async () => {
    const request = {
      Seal: false,
      Reference: 'Contract #123',
      PostbackUrl: 'https://example.com/postback',
      SignRequestMode: 0,
      DaysToExpire: 0,
      SendEmailNotifications: false,
      Language: 'en-US',
      Context: { CustomerId: 42, Tags: ['a', 'b'], Nested: { Flag: true } },
      Signers: [
        {
          Id: 'signer-1',
          Email: 'john.doe@example.com',
          Mobile: '+31612345678',
          Verifications: [{ Type: 'Scribble', RequireHandsignature: true, ScribbleNameFixed: false, ScribbleName: 'John Doe' }],
          SendSignRequest: true,
          SendSignConfirmation: true,
          SignRequestMessage: 'Hello, could you please sign this document? Best regards, John Doe',
          SignRequestSubject: 'Please sign',
          DaysToRemind: 15,
          Language: 'en-US',
          ScribbleName: 'John Doe',
          ScribbleNameFixed: false,
          Reference: 'Client #123',
          ReturnUrl: 'https://signhost.com',
          IntroText: 'Welcome',
          AllowDelegation: false,
          Context: { Role: 'buyer' },
        },
      ],
      Receivers: [{ Name: 'Jane Roe', Email: 'jane@example.com', Language: 'en-US', Message: 'Here you go', Subject: 'Signed', Reference: 'R1', Context: { x: 1 } }],
    };
    const created = await fetch(`${service.url}/api/transaction`, {
      method: 'POST',
      headers: clientHeaders({ 'Content-Type': 'application/json; charset=utf-8' }),
      body: JSON.stringify(request),
    });
    expect(created.status).toBe(200);
    expect(created.headers.get('content-type')).toBe('application/vnd.signhost.v1+json; charset=utf-8'); // the media type the client asked for
    const tx = (await created.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(tx).toMatchObject({ Status: 5, Seal: false, Reference: 'Contract #123', SignRequestMode: 2, DaysToExpire: 30, Language: 'en-US', Context: request.Context });
    expect(tx.Signers[0]).toMatchObject({
      Id: 'signer-1',
      Email: 'john.doe@example.com',
      Verifications: request.Signers[0]?.Verifications,
      DaysToRemind: 15,
      ReturnUrl: 'https://signhost.com',
      Context: { Role: 'buyer' },
    });
    expect(tx.Signers[0].SignUrl).toMatch(/\/sign\//);
    expect(tx.Signers[0].ShowUrl).toBe(tx.Signers[0].SignUrl.replace('/sign/', '/show/'));
    expect(tx.Signers[0].ReceiptUrl).toBe(tx.Signers[0].SignUrl.replace('/sign/', '/receipt/'));
    expect(tx.Receivers[0]).toMatchObject({ Name: 'Jane Roe', Email: 'jane@example.com', Context: { x: 1 } });
    // Version 1: documented properties that are absent come back as null; CancelationReason is left out (§2).
    expect(tx.CanceledDateTime).toBeNull();
    expect(tx).not.toHaveProperty('CancelationReason');
    expect(tx).toHaveProperty('Files');
    const id = tx.Id as string;

    const fileId = 'Contract #1 (final).pdf';
    const encoded = encodeURIComponent(fileId);
    const metadata = new TextEncoder().encode(
      JSON.stringify({
        DisplayName: 'Contract #1',
        Signers: { 'signer-1': { FormSets: ['SignerForm'] } },
        FormSets: { SignerForm: { Signature1: { Type: 'Signature', Location: { Search: '{{Signer1}}', Width: 140, Height: 70 } } } },
      }),
    );
    const metaPut = await fetch(`${service.url}/api/transaction/${id}/file/${encoded}`, {
      method: 'PUT',
      headers: clientHeaders({ 'Content-Type': 'application/json; charset=utf-8', Digest: await digestHeader(metadata) }),
      body: metadata,
    });
    expect(metaPut.status).toBe(202);
    expect(await metaPut.json()).toEqual({ Message: `Meta data for file ${fileId} accepted, waiting for actual file` });
    const pdf = await makePdf([['Contract', 'Signed by: {{Signer1}}']]);
    const pdfPut = await fetch(`${service.url}/api/transaction/${id}/file/${encoded}`, {
      method: 'PUT',
      headers: clientHeaders({ 'Content-Type': 'application/pdf', Digest: await digestHeader(pdf) }),
      body: pdf,
    });
    expect(pdfPut.status).toBe(201);
    expect(await pdfPut.json()).toEqual({ Message: `Stored file ${fileId} to transaction ${id}` });

    const start = await fetch(`${service.url}/api/transaction/${id}/start`, {
      method: 'PUT',
      headers: clientHeaders({ 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': '0' }),
    });
    expect(start.status).toBe(204);

    const v1 = (await (await fetch(`${service.url}/api/transaction/${id}`, { headers: clientHeaders() })).json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(v1.Status).toBe(10);
    expect(v1.Files).toEqual({
      [fileId]: { Links: [{ Rel: 'file', Type: 'application/pdf', Link: `${service.url}/api/transaction/${id}/file/${encoded}` }], DisplayName: 'Contract #1' },
    });
    expect(v1.CanceledDateTime).toBeNull();

    const v2 = (await (await fetch(`${service.url}/api/transaction/${id}`, { headers: clientHeaders({ Accept: 'application/vnd.signhost.v2+json' }) })).json()) as Record<string, unknown>;
    expect(v2).not.toHaveProperty('CanceledDateTime');
    expect(v2).not.toHaveProperty('CancelationReason');
    expect(Object.values(v2)).not.toContain(null);

    // The Link as given downloads the prepared PDF.
    const download = await fetch(v1.Files[fileId].Links[0].Link, { headers: clientHeaders({ Accept: 'application/pdf' }) });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).subarray(0, pdf.length).equals(Buffer.from(pdf))).toBe(true);

    const cancel = await fetch(`${service.url}/api/transaction/${id}`, {
      method: 'DELETE',
      headers: clientHeaders({ 'Content-Type': 'application/json; charset=utf-8' }),
      body: JSON.stringify({ SendNotifications: true, Reason: 'No longer needed' }),
    });
    expect(cancel.status).toBe(200);
    expect(await cancel.json()).toMatchObject({ Id: id, Status: 60, CancelationReason: 'No longer needed' });
  }, 60_000);
});
