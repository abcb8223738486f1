/**
 * The tolerant reader (docs/design/api.md#tolerant-reader) over HTTP:
 * nulls are absent, every property Signhost's OpenAPI documents is accepted and the read-only ones ignored, while
 * the checks that matter stay (unknown properties named, types, control characters, limits, nesting, fileIds).
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_HEADERS, call, makePdf, startTestService, type TestService } from '../helpers/service-harness.js';
import { fixtureText } from './client-fixtures.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
}, 60_000);

afterAll(async () => {
  await service?.dispose();
});

/** A PUT with the path exactly as given (fetch would resolve `.` and `%2E` segments away). */
function rawPut(path: string, body: Uint8Array): Promise<{ status: number; text: string }> {
  const { port } = new URL(service.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'PUT', path, headers: { ...AUTH_HEADERS, 'content-type': 'application/pdf' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const create = (json: unknown) => call(service.url, 'POST', '/api/transaction', { json });
const createText = (body: string) => call(service.url, 'POST', '/api/transaction', { body, headers: { 'content-type': 'application/json' } });

describe('null means absent', () => {
  it('accepts null for every optional property, at every level, and answers as if it was not sent', async () => {
    const withNulls = await create({
      Id: null, Seal: null, Reference: null, PostbackUrl: null, SignRequestMode: null, DaysToExpire: null, SendEmailNotifications: null,
      Language: null, Context: null, Receivers: null,
      Signers: [{ Id: null, Email: 'a@example.com', SignRequestMessage: 'Please sign.', Mobile: null, Verifications: null, Authentications: null, SendSignRequest: null, DaysToRemind: null, Expires: null, Context: null }],
    });
    const without = await create({ Signers: [{ Email: 'a@example.com', SignRequestMessage: 'Please sign.' }] });
    expect(withNulls.status, withNulls.text).toBe(200);
    const strip = (tx: Record<string, unknown>) => JSON.parse(JSON.stringify(tx).replace(/"(Id|SignUrl|ShowUrl|ReceiptUrl)":"[^"]*"/g, '"$1":"x"')) as unknown;
    expect(strip(withNulls.json)).toEqual(strip(without.json));
  });

  it('keeps null inside Context, which is returned exactly as sent', async () => {
    const context = { a: null, b: [null, 1], c: { d: null } };
    const created = await create({ Seal: true, Context: context, Signers: [{ SendSignRequest: false, Email: 'a@example.com', Context: context }] });
    expect(created.status).toBe(200);
    expect(created.json.Context).toEqual(context);
    expect(created.json.Signers[0].Context).toEqual(context);
  });

  it('a null DELETE reason is no reason', async () => {
    const id = (await create({ Seal: true })).json.Id as string;
    const deleted = await call(service.url, 'DELETE', `/api/transaction/${id}`, { json: { SendNotifications: null, Reason: null } });
    expect(deleted.status).toBe(200);
    expect(deleted.json).not.toHaveProperty('CancelationReason');
  });
});

describe('documented properties', () => {
  it('accepts every verification and authentication property of the OpenAPI; echoes the writable ones, ignores the read-only ones', async () => {
    const created = await createText(fixtureText('openapi/create-verifications.json'));
    expect(created.status, created.text).toBe(200);
    const signer = created.json.Signers[0];
    expect(signer.Authentications).toEqual([
      { Type: 'PhoneNumber', Number: '+31612345678', SecureDownload: true },
      { Type: 'DigiD', Bsn: '111222333', SecureDownload: false },
    ]);
    expect(signer.Verifications).toEqual([
      { Type: 'Email', Email: 'documented@example.com' },
      { Type: 'PhoneNumber', Number: '+31612345678', SecureDownload: true },
      { Type: 'DigiD', Bsn: '111222333', SecureDownload: true },
      { Type: 'iDIN' },
      { Type: 'eHerkenning', EntityConcernIdKvkNr: '12345678' },
      { Type: 'SURFnet' },
      { Type: 'Onfido', WorkflowId: '123e4567-e89b-12d3-a456-426614174000' },
      { Type: 'itsme Identification', PhoneNumber: '+32470123456' },
      { Type: 'OpenID Providers', ProviderName: 'example' },
      { Type: 'CSC Qualified' },
    ]);
    expect(signer).toMatchObject({ RequireEmailVerification: true, RequireSmsVerification: true, RequireDigidVerification: true, RequireScribble: false });
  });

  it('accepts the read-only properties of a whole model sent back, and ignores them', async () => {
    const created = await create({
      Id: 'chosen-by-client', Status: 30, Files: { 'x.pdf': {} }, CreatedDateTime: '2020-01-01T00:00:00+00:00', CanceledDateTime: '2020-01-01T00:00:00+00:00',
      CancelationReason: 'x', CancelledDateTime: '2020-01-01T00:00:00+00:00', CancellationReason: 'x', ModifiedDateTime: '2020-01-01T00:00:00+00:00',
      Signers: [{ SendSignRequest: false,
        Email: 'a@example.com', SignUrl: 'https://evil.example/sign', ShowUrl: 'https://evil.example/show', ReceiptUrl: 'https://evil.example/r',
        DelegateSignUrl: 'x', DelegateReason: 'x', DelegateSignerEmail: 'd@example.com', DelegateSignerName: 'D', SignedDateTime: '2020-01-01T00:00:00+00:00',
        RejectDateTime: '2020-01-01T00:00:00+00:00', CreatedDateTime: '2020-01-01T00:00:00+00:00', SignerDelegationDateTime: '2020-01-01T00:00:00+00:00',
        ModifiedDateTime: '2020-01-01T00:00:00+00:00', RejectReason: 'x', Activities: [{ Id: 'a', Code: 203, Activity: 'Signed', CreatedDateTime: '2020-01-01T00:00:00+00:00' }],
      }],
      Receivers: [{ Id: 'r', Email: 'r@example.com', Activities: [], CreatedDateTime: '2020-01-01T00:00:00+00:00', ModifiedDateTime: '2020-01-01T00:00:00+00:00' }],
    });
    expect(created.status, created.text).toBe(200);
    const tx = created.json;
    expect(tx.Id).not.toBe('chosen-by-client');
    expect(tx).toMatchObject({ Status: 5, Files: {}, CanceledDateTime: null });
    expect(tx).not.toHaveProperty('CancellationReason');
    expect(tx.Signers[0]).toMatchObject({ Activities: [], SignedDateTime: null, RejectReason: null });
    expect(tx.Signers[0].SignUrl).toMatch(new RegExp(`^${service.url}/sign/`));
    expect(tx.Receivers[0].Id).not.toBe('r');
  });

  it('accepts a signer model posted back after signing, with the IPAddress verification the service added, and drops that', async () => {
    const created = await create({
      Signers: [{ Email: 'a@example.com', SendSignRequest: false, Verifications: [{ Type: 'Scribble' }, { Type: 'IPAddress', IPAddress: '192.0.2.1' }, { Type: 'SigningCertificate', Subject: 'CN=A' }] }],
    });
    expect(created.status, created.text).toBe(200);
    expect(created.json.Signers[0].Verifications).toEqual([{ Type: 'Scribble' }]);
  });

  it('a property documented nowhere is still 400 naming it, at any level', async () => {
    for (const [body, message] of [
      [{ Seal: true, Singers: [] }, 'Singers: unknown property; only documented properties may be sent'],
      [{ Signers: [{ SendSignRequest: false, Email: 'a@example.com', Emial: 'x' }] }, 'Signers[0].Emial: unknown property; only documented properties may be sent'],
      [{ Signers: [{ SendSignRequest: false, Email: 'a@example.com', Verifications: [{ Type: 'Scribble', Colour: 'red' }] }] }, 'Signers[0].Verifications[0].Colour: unknown property; only documented properties may be sent'],
      [{ Seal: true, Receivers: [{ Email: 'r@example.com', Mesage: 'x' }] }, 'Receivers[0].Mesage: unknown property; only documented properties may be sent'],
    ] as const) {
      const refused = await create(body);
      expect(refused.status).toBe(400);
      expect(refused.json.Message).toContain(message);
    }
  });

  it('keeps the type, control character and limit checks', async () => {
    expect((await create({ Seal: 'true' })).json.Message).toBe('Seal: must be a boolean');
    expect((await create({ Seal: true, Status: 'open' })).json.Message).toBe('Status: must be an integer');
    const subject = await create({ Signers: [{ SendSignRequest: false, Email: 'a@example.com', SignRequestSubject: 'Sign\u0007 now' }] });
    expect(subject).toMatchObject({ status: 400, json: { Message: 'Signer Subject: Input contains one or more invalid characters.' } });
    expect((await create({ Seal: true, DaysToExpire: 91 })).json.Message).toBe('DaysToExpire: must be at most 90');
    expect((await create({ Seal: true, Reference: 'x'.repeat(256) })).json.Message).toBe('Reference: must be at most 255 characters');
  });
});

describe('SignRequestMode, SendSignConfirmation, SendEmailNotifications ', () => {
  it('0 or absent means 2, responses show 1 or 2; SendSignConfirmation follows SendSignRequest; SendEmailNotifications true', async () => {
    const signer = { Email: 'a@example.com', SendSignRequest: true, SignRequestMessage: 'Please sign' };
    for (const [mode, shown] of [[0, 2], [undefined, 2], [1, 1], [2, 2]] as const) {
      const created = await create({ SignRequestMode: mode, Signers: [signer, { Email: 'b@example.com', SignRequestMessage: 'Please sign' }, { Email: 'c@example.com', SendSignRequest: false }] });
      expect(created.json.SignRequestMode).toBe(shown);
      expect(created.json.SendEmailNotifications).toBe(true);
      const flags = created.json.Signers.map((s: { SendSignRequest: boolean; SendSignConfirmation: boolean }) => [s.SendSignRequest, s.SendSignConfirmation]);
      expect(flags).toEqual([[true, true], [true, true], [false, false]]);
    }
    const explicit = await create({ SendEmailNotifications: false, Signers: [{ ...signer, SendSignConfirmation: false }] });
    expect(explicit.json).toMatchObject({ SendEmailNotifications: false, Signers: [{ SendSignRequest: true, SendSignConfirmation: false }] });
  });

  it("SignRequestMode 0 invites the first signer at start (the .NET README flow), 1 every signer not sent SendSignRequest false", async () => {
    const pdf = await makePdf([['Invitation test']]);
    const invited = async (mode: number): Promise<number[]> => {
      const created = await create({
        SignRequestMode: mode,
        Signers: [
          { Email: 'a@example.com', SendSignRequest: true, SignRequestMessage: 'Please sign' },
          { Email: 'b@example.com', SignRequestMessage: 'Please sign' },
          { Email: 'c@example.com', SendSignRequest: false },
        ],
      });
      const id = created.json.Id as string;
      await call(service.url, 'PUT', `/api/transaction/${id}/file/a.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } });
      expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
      await service.server.events.drain();
      const got = await call(service.url, 'GET', `/api/transaction/${id}`);
      return (got.json.Signers as { Activities: { Code: number }[] }[]).map((s) => s.Activities.filter((a) => a.Code === 101).length);
    };
    expect(await invited(0)).toEqual([1, 0, 0]);
    expect(await invited(1)).toEqual([1, 1, 0]);
  });
});

describe("Signhost's messages", () => {
  it('answers with Signhost\'s public texts', async () => {
    expect((await create({ Signers: [{ Email: 'a@example.com', SendSignRequest: true }] })).json.Message).toBe('The sign request message is null or empty.');
    expect((await create({ Signers: [{ Email: 'a@example.com' }] })).json.Message).toBe('The sign request message is null or empty.');
    expect((await create({ DaysToExpire: 5, Signers: [{ SendSignRequest: false, Email: 'a@example.com', DaysToRemind: 6 }] })).json.Message).toBe('The days to remind must be lower than the days to expire.');
    expect((await create({ Signers: [{ SendSignRequest: false, Id: 's', Email: 'a@example.com' }, { SendSignRequest: false, Id: 's', Email: 'b@example.com' }] })).json.Message).toBe('The signer id is already used by another signer.');
    expect((await create({ Seal: false })).json.Message).toBe('Nor seal nor signers has been provided.');
  });
});

describe('fileIds', () => {
  it('refuses . and .. and bidirectional control characters with Signhost\'s text, no backticks', async () => {
    const id = (await create({ Seal: true })).json.Id as string;
    const pdf = await makePdf([['x']]);
    for (const [raw, decoded] of [
      // fetch and .NET's Uri resolve dot segments (also %2E) before sending; a raw HTTP client does not.
      ['.', '.'],
      ['%2E', '.'],
      ['%2E%2E', '..'],
      ['invalid%7Cfilename.pdf', 'invalid|filename.pdf'],
      ['contract%E2%80%AEfdp.exe', 'contract\u202efdp.exe'],
      ['a%E2%81%A6b.pdf', 'a\u2066b.pdf'],
      ['a%E2%80%8Fb.pdf', 'a\u200fb.pdf'],
    ] as const) {
      const put = await rawPut(`/api/transaction/${id}/file/${raw}`, pdf);
      expect(put.status, raw).toBe(400);
      expect(JSON.parse(put.text), raw).toEqual({ Message: `${decoded} is not a valid file name.` });
    }
  });
});

describe('nesting limit', () => {
  it('a Context nested 4,200 deep is a 400 naming its path, not a 500; 32 levels are fine', async () => {
    const deep = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
    const tooDeep = await createText(`{"Seal":true,"Signers":[{"SendSignRequest":false,"Email":"a@example.com","Context":${deep(4200)}}]}`);
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.json).toEqual({ Message: 'Signers[0].Context: nested more than 32 levels deep; at most 32 levels are accepted' });
    const top = await createText(`{"Seal":true,"Context":${deep(33)}}`);
    expect(top.json).toEqual({ Message: 'Context: nested more than 32 levels deep; at most 32 levels are accepted' });
    const fine = await createText(`{"Seal":true,"Context":${deep(32)}}`);
    expect(fine.status, fine.text).toBe(200);
  });

  it('every other JSON body of the service too (the signer API), before any handler walks it', async () => {
    const body = `{"Fields":${'{"a":'.repeat(4199)}{}${'}'.repeat(4199)}}`;
    const refused = await call(service.url, 'POST', `/api/signer/${'x'.repeat(32)}/sign`, { auth: false, body, headers: { 'content-type': 'application/json' } });
    expect(refused.status).toBe(400);
    expect(refused.json.Message).toMatch(/^Fields(\.a)+: nested more than 64 levels deep; at most 64 levels are accepted$/);
  });

  it('any other part of a body nested too deep is a 400 too', async () => {
    const body = `{"Seal":true,"Signers":[{"SendSignRequest":false,"Email":"a@example.com","Verifications":[{"Type":"SURFnet","Attributes":${'['.repeat(5000)}${']'.repeat(5000)}}]}]}`;
    const refused = await createText(body);
    expect(refused.status).toBe(400);
    expect(refused.json.Message).toMatch(/^Signers\[0\]\.Verifications\[0\]\.Attributes(\[0\])+: nested more than 64 levels deep; at most 64 levels are accepted$/);
  });
});
