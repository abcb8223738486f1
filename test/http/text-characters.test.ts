/**
 * Control and bidirectional formatting characters are refused in every text property a client sends (create, DELETE
 * reason, the signer's reject reason and typed name) with Signhost's text after the property's name; messages, intro
 * texts and reasons keep their line breaks; subjects are at most 64 characters, as Signhost documents.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasForbiddenCharacters, hasForbiddenMultiLineCharacters, withoutForbiddenCharacters } from '../../src/domain/text-rules.js';
import { call, startTestService, type TestService } from '../helpers/service-harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
}, 60_000);
afterAll(async () => {
  await service?.dispose();
});

const create = (json: unknown) => call(service.url, 'POST', '/api/transaction', { json });
const INVALID = 'Input contains one or more invalid characters.';
/** NUL, BEL, ESC, a line feed, a C1 control, the right-to-left override, an isolate, a line separator. */
const BAD = ['\u0000', '\u0007', '\u001b', '\n', '\u0085', '\u202e', '\u2067', '\u2028'] as const;
const BAD_IN_MESSAGES = BAD.filter((c) => c !== '\n');

describe('control characters in the text properties of a create request', () => {
  const signer = (extra: Record<string, unknown>) => ({ Seal: true, Signers: [{ Email: 'a@example.com', SendSignRequest: false, ...extra }] });
  const receiver = (extra: Record<string, unknown>) => ({ Seal: true, Receivers: [{ Email: 'r@example.com', Message: 'Signed.', ...extra }] });
  const cases: readonly [string, (text: string) => unknown, string, boolean][] = [
    ['transaction Reference', (t) => ({ Seal: true, Reference: `ref${t}` }), 'Reference', false],
    ['signer Reference', (t) => signer({ Reference: `ref${t}` }), 'Signers[0].Reference', false],
    ['ScribbleName', (t) => signer({ ScribbleName: `Jan${t}` }), 'Signers[0].ScribbleName', false],
    ['SignRequestSubject', (t) => signer({ SignRequestSubject: `Sign${t}` }), 'Signer Subject', false],
    ['SignRequestMessage', (t) => signer({ SendSignRequest: true, SignRequestMessage: `Please${t}sign` }), 'Signers[0].SignRequestMessage', true],
    ['IntroText', (t) => signer({ IntroText: `Intro${t}` }), 'Signers[0].IntroText', true],
    ['a verification field', (t) => signer({ Verifications: [{ Type: 'Scribble', ScribbleName: `Jan${t}` }] }), 'Signers[0].Verifications[0].ScribbleName', false],
    ['signer Context string', (t) => signer({ Context: { a: [1, `x${t}`] } }), 'Signers[0].Context.a[1]', true],
    ['receiver Name', (t) => receiver({ Name: `Jane${t}` }), 'Receivers[0].Name', false],
    ['receiver Subject', (t) => receiver({ Subject: `Copy${t}` }), 'Receiver Subject', false],
    ['receiver Message', (t) => receiver({ Message: `Here${t}it is` }), 'Receivers[0].Message', true],
    ['receiver Reference', (t) => receiver({ Reference: `r${t}` }), 'Receivers[0].Reference', false],
    ['transaction Context', (t) => ({ Seal: true, Context: { note: `x${t}` } }), 'Context.note', true],
    ['PostbackUrl', (t) => ({ Seal: true, PostbackUrl: `https://example.com/p${t}b` }), 'PostbackUrl', false],
  ];

  it.each(cases)('%s: refused, naming the property', async (_name, body, path, multiLine) => {
    for (const bad of multiLine ? BAD_IN_MESSAGES : BAD) {
      const refused = await create(body(bad));
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      if (path === 'PostbackUrl') expect(refused.json.Message, JSON.stringify(bad)).toMatch(/^PostbackUrl: not (a valid absolute|an absolute http\(s\)) URL/);
      else expect(refused.json.Message, JSON.stringify(bad)).toContain(`${path}: ${INVALID}`);
    }
  });

  it('messages, intro texts and Context strings keep their line breaks', async () => {
    const created = await create({
      Seal: true,
      Context: { address: 'Street 1\nTown' },
      Signers: [{ Email: 'a@example.com', SignRequestMessage: 'Dear Jan,\r\n\nPlease sign.', IntroText: '# Contract\n\nRead it.' }],
      Receivers: [{ Email: 'r@example.com', Message: 'Line 1\nLine 2' }],
    });
    expect(created.status, created.text).toBe(200);
    expect(created.json.Signers[0].SignRequestMessage).toBe('Dear Jan,\r\n\nPlease sign.');
    expect(created.json.Receivers[0].Message).toBe('Line 1\nLine 2');
  });

  it('an e-mail address with a bidi override is not a valid address', async () => {
    const refused = await create({ Signers: [{ Email: 'a\u202e@example.com', SendSignRequest: false }] });
    expect(refused.json.Message).toBe('Signers[0].Email: not a valid e-mail address');
  });
});

describe('subjects', () => {
  it('are at most 64 characters, as Signhost documents', async () => {
    const ok = await create({ Seal: true, Signers: [{ Email: 'a@example.com', SendSignRequest: false, SignRequestSubject: 'x'.repeat(64) }] });
    expect(ok.status, ok.text).toBe(200);
    const signer = await create({ Seal: true, Signers: [{ Email: 'a@example.com', SendSignRequest: false, SignRequestSubject: 'x'.repeat(65) }] });
    expect(signer.json.Message).toBe('Signers[0].SignRequestSubject: must be at most 64 characters');
    const receiver = await create({ Seal: true, Receivers: [{ Email: 'r@example.com', Subject: 'x'.repeat(65) }] });
    expect(receiver.json.Message).toBe('Receivers[0].Subject: must be at most 64 characters');
  });
});

describe('reasons and the typed name', () => {
  it('a DELETE reason with an escape sequence is refused; one with line breaks is kept', async () => {
    const id = (await create({ Seal: true })).json.Id as string;
    const refused = await call(service.url, 'DELETE', `/api/transaction/${id}`, { json: { Reason: 'Gone\u001b[31m' } });
    expect(refused).toMatchObject({ status: 400, json: { Message: `Reason: ${INVALID}` } });
    const deleted = await call(service.url, 'DELETE', `/api/transaction/${id}`, { json: { Reason: 'Changed terms.\nNew contract follows.' } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.json.CancelationReason).toBe('Changed terms.\nNew contract follows.');
  });

  it('the signer API refuses such characters in a reject reason and in the typed name (which becomes the certificate subject)', async () => {
    const token = 'x'.repeat(32);
    const reject = await call(service.url, 'POST', `/api/signer/${token}/reject`, { auth: false, json: { Reason: 'No\u0000' } });
    expect(reject).toMatchObject({ status: 400, json: { Message: `Reason: ${INVALID}` } });
    const name = await call(service.url, 'POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: 'Scribble', Name: 'Jan\u202eoD' } });
    expect(name).toMatchObject({ status: 400, json: { Message: `Name: ${INVALID}` } });
  });
});

describe('the character rule', () => {
  it('refuses exactly the control and bidi formatting characters; removal leaves a text the rule accepts', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const clean = withoutForbiddenCharacters(text);
        expect(hasForbiddenCharacters(clean)).toBe(false);
        expect(hasForbiddenCharacters(text)).toBe(clean !== text);
        if (!hasForbiddenCharacters(text)) expect(hasForbiddenMultiLineCharacters(text)).toBe(false);
      }),
    );
    for (const c of ['\t', '\n', '\r']) expect(hasForbiddenMultiLineCharacters(`a${c}b`)).toBe(false);
    for (const c of ['é', 'ß', '中', 'ش', '😀', '\u00a0']) expect(hasForbiddenCharacters(c)).toBe(false);
  });
});
