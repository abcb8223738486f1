/**
 * Real Signhost clients work unchanged: the byte-exact requests of the .NET client v5 and v4.3 and the
 * Python client (fixtures/clients/, written from their models and serializer settings) replayed against the real
 * service over HTTP — create, file metadata, upload with their Digest header, start, GET, signing (through the
 * signer API), file and receipt download, DELETE, downloads during DELETE's grace period, 410s once cleaned — and the
 * postbacks they receive parsed as their receivers parse them. Every signed PDF is checked by pdfsig, openssl and qpdf.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostbackReceiver, type PostbackReceiver } from '../../src/testing/start-postback-receiver.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { call, makePdf } from '../helpers/service-harness.js';
import { SCRIBBLE_DATA_URL } from '../service/signer/signer-fixture.js';
import {
  buildRequest,
  CLIENTS,
  fixtureText,
  POSTBACK_SECRET,
  readFlow,
  receiverChecksum,
  responseShapeProblems,
  startClientTestService,
  type ClientName,
  type ClientTestService,
  type FlowValues,
} from './client-fixtures.js';

let s: ClientTestService;
let receiver: PostbackReceiver;
let signingCa: string;
let sealCa: string;

beforeAll(async () => {
  [s, receiver] = await Promise.all([startClientTestService(), startPostbackReceiver()]);
  signingCa = await (await fetch(`${s.service.url}/api/ca/signing.pem`)).text();
  sealCa = await (await fetch(`${s.service.url}/api/ca/seal.pem`)).text();
}, 60_000);

afterAll(async () => {
  await Promise.all([s?.service.dispose(), receiver?.close()]);
});

async function runWorkers(): Promise<void> {
  await s.service.server.worker.tick();
  await s.service.server.events.drain();
}

/** Drops the properties a client sent as null (they mean absent), to compare with what comes back. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, withoutNulls(v)]));
}

/** The signer verifies with the code the SMS sender logged and the scribble, then signs. */
async function signAsSigner(token: string): Promise<void> {
  const signer = (method: string, path: string, json?: unknown) => call(s.service.url, method, `/api/signer/${token}${path}`, { auth: false, ...(json !== undefined ? { json } : {}) });
  expect((await signer('GET', '')).status).toBe(200);
  expect((await signer('POST', '/verification', { Type: 'PhoneNumber' })).status).toBe(200);
  const code = s.smsCode('Signer1');
  expect(code).toMatch(/^\d{6}$/);
  expect((await signer('POST', '/verification', { Type: 'PhoneNumber', Code: code })).status).toBe(200);
  const scribble = await signer('POST', '/verification', { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: 'John Doe' });
  expect(scribble.status, scribble.text).toBe(200);
  const signed = await signer('POST', '/sign', { Fields: {} });
  expect(signed.status, signed.text).toBe(200);
}

describe.each(CLIENTS)('the %s client', (client: ClientName) => {
  it('runs its whole flow unchanged: every request accepted, every answer what the client expects', async () => {
    const flow = readFlow(client);
    const sent = JSON.parse(fixtureText(`${client}/create.json`)) as { Signers: { Verifications: unknown[]; SendSignRequest: boolean }[]; SendEmailNotifications: boolean };
    const postbackPath = `/postback/${client}`;
    const values: FlowValues = {
      baseUrl: s.service.url,
      postbackUrl: `${receiver.url}${postbackPath}`,
      id: '',
      pdf: await makePdf([['Contract for John Doe', 'Signed by: {{Signer1}}']]),
    };
    let token = '';
    for (const step of flow.steps) {
      if (step.step === 'sign') {
        await signAsSigner(token);
        await runWorkers();
        continue;
      }
      if (step.step === 'clean') {
        s.service.clock.advance(15 * 60_000 + 1000);
        await runWorkers();
        continue;
      }
      const { url, init } = buildRequest(client, flow, step, values);
      const response = await fetch(url, init);
      const bytes = new Uint8Array(await response.arrayBuffer());
      const text = new TextDecoder().decode(bytes);
      expect(response.status, `${step.step}: ${text.slice(0, 500)}`).toBe(step.status);
      await runWorkers(); // mails and postbacks go out between the client's calls
      const json = () => JSON.parse(text) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      switch (step.step) {
        case 'create': {
          const tx = json();
          values.id = tx.Id as string;
          expect(responseShapeProblems(tx)).toEqual([]);
          // Read-only properties sent back (v4: Status 0, Files null, dates) are ignored; 0 = 2
          // (docs/design/api.md#tolerant-reader).
          expect(tx).toMatchObject({ Status: 5, SignRequestMode: 2, SendEmailNotifications: sent.SendEmailNotifications, Files: {} });
          const signer = tx.Signers[0];
          token = (signer.SignUrl as string).split('/sign/')[1] as string;
          expect(signer).toMatchObject({
            Id: 'Signer1',
            Email: 'john.doe@example.com',
            SendSignRequest: true,
            SendSignConfirmation: true,
            AllowDelegation: false,
            ScribbleName: 'John Doe',
            ScribbleNameFixed: false,
            RequireScribble: true,
            RequireSmsVerification: true,
            Authentications: [],
            Language: tx.Language,
            ShowUrl: `${s.service.url}/show/${token}`,
            ReceiptUrl: `${s.service.url}/receipt/${token}`,
            Activities: [],
          });
          expect(signer.Verifications).toEqual(withoutNulls(sent.Signers[0]?.Verifications));
          expect(tx.Receivers[0]).toMatchObject({ Name: 'Jane Roe', Email: 'jane@example.com', Message: 'Here is the signed contract.' });
          expect(typeof tx.Receivers[0].Id).toBe('string');
          break;
        }
        case 'file metadata':
          expect(json()).toEqual({ Message: `Meta data for file ${flow.fileId} accepted, waiting for actual file` });
          break;
        case 'upload':
          expect(json()).toEqual({ Message: `Stored file ${flow.fileId} to transaction ${values.id}` });
          break;
        case 'get':
          expect(responseShapeProblems(json())).toEqual([]);
          expect(json()).toMatchObject({ Status: 10, Files: { [flow.fileId]: { DisplayName: 'First document' } } });
          break;
        case 'get signed': {
          const tx = json();
          expect(responseShapeProblems(tx)).toEqual([]);
          expect(tx.Status).toBe(30);
          // SendSignConfirmation defaulted to SendSignRequest: the signed documents (301) and the receipt (401) were sent.
          expect((tx.Signers[0].Activities as { Code: number }[]).map((a) => a.Code)).toEqual(expect.arrayContaining([101, 203, 301, 401]));
          break;
        }
        case 'download document': {
          expect(response.headers.get('content-type')).toBe('application/pdf');
          const report = await checkSignedPdf(bytes, signingCa);
          expect(report.pdfsig.length, report.details).toBe(1);
          expect(report.pdfsig.every((sig) => sig.valid), report.details).toBe(true);
          expect(report.openssl, report.details).toEqual([true]);
          expect(report.qpdf, report.details).toBe(true);
          break;
        }
        case 'download receipt':
        case 'download receipt after delete': {
          expect(response.headers.get('content-type')).toBe('application/pdf');
          const report = await checkSignedPdf(bytes, sealCa);
          expect(report.openssl.length, report.details).toBeGreaterThan(0);
          expect(report.openssl.every(Boolean), report.details).toBe(true);
          expect(report.qpdf, report.details).toBe(true);
          break;
        }
        case 'delete':
          expect(responseShapeProblems(json())).toEqual([]);
          expect(json()).toMatchObject({ Id: values.id, Status: 30, CanceledDateTime: expect.any(String) });
          break;
        case 'get cleaned':
          expect(json()).toMatchObject({ Id: values.id, Status: 30, CanceledDateTime: expect.any(String), Signers: [{ Id: 'Signer1' }] });
          expect(json().CreatedDateTime).toEqual(expect.any(String));
          break;
        case 'download document cleaned':
          expect(json()).toEqual({ Message: 'The document is no longer available' });
          break;
        case 'download receipt cleaned':
          expect(json()).toEqual({ Message: 'The receipt is no longer available' });
          break;
        default:
          break;
      }
    }

    // The postbacks, as SignhostApiReceiver reads them: Checksum header (else body), SHA-1 of Id||Status|secret.
    const postbacks = receiver.received.filter((r) => r.path === postbackPath);
    expect(postbacks.map((r) => JSON.parse(r.body).Status)).toEqual(expect.arrayContaining([10, 30]));
    for (const postback of postbacks) {
      const body = JSON.parse(postback.body) as { Id: string; Status: number; Checksum: string };
      expect(postback.headers.checksum ?? body.Checksum).toBe(receiverChecksum(body, POSTBACK_SECRET));
      const { Checksum: _checksum, ...transaction } = body;
      expect(responseShapeProblems(transaction), postback.body).toEqual([]);
    }
  }, 120_000);
});
