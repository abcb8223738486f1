import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ValidationError } from '../../src/errors.js';
import {
  createTransaction,
  isValidIban,
  validateCreateRequest,
  type CreateTransactionRequest,
  type SignerRequest,
} from '../../src/domain/transaction-rules.js';
import { isValidBsn } from '../../src/domain/bsn.js';
import { isBelgianE164, isE164 } from '../../src/domain/e164.js';
import { counters, T0 } from '../store/transaction-fixtures.js';

const EMAIL = 'a@example.com';

/**
 * The domain checks its rules itself (a library caller may skip the HTTP schema), so some cases hand it what the
 * request type rules out (no Email, an unknown Language): those pass through `unknown` here.
 */
function issuesOf(request: CreateTransactionRequest | Record<string, unknown>): string[] {
  return validateCreateRequest(request as CreateTransactionRequest);
}

/** A signer who gets invitations, with the message they then need. */
function signer(extra: Partial<Record<keyof SignerRequest, unknown>> = {}): SignerRequest {
  return { Email: EMAIL, SignRequestMessage: 'Please sign.', ...extra } as SignerRequest;
}

function build(request: CreateTransactionRequest) {
  return createTransaction(request, { id: 'tx', accountId: 'acc', now: T0, ...counters() });
}

describe('create request rules', () => {
  it('accepts a minimal signer transaction and a seal-only transaction', () => {
    expect(issuesOf({ Signers: [signer()] })).toEqual([]);
    expect(issuesOf({ Seal: true })).toEqual([]);
  });

  it('refuses no seal and no signers', () => {
    expect(issuesOf({})).toEqual(['Nor seal nor signers has been provided.']);
    expect(issuesOf({ Seal: false, Signers: [] })).toEqual(['Nor seal nor signers has been provided.']);
  });

  it('checks e-mail addresses of signers and receivers', () => {
    expect(issuesOf({ Signers: [signer(), signer({ SendSignRequest: false, Email: 'not-an-address' })] })).toEqual([
      'Signers[1].Email: not a valid e-mail address',
    ]);
    expect(issuesOf({ Signers: [{ SendSignRequest: false }] })).toEqual(['Signers[0].Email: is required']);
    expect(issuesOf({ Seal: true, Receivers: [{ Email: 'x@' }] })).toEqual(['Receivers[0].Email: not a valid e-mail address']);
    expect(issuesOf({ Seal: true, Receivers: [{}] })).toEqual(['Receivers[0].Email: is required']);
  });

  it('checks signer ids: pattern and uniqueness', () => {
    expect(issuesOf({ Signers: [signer({ Id: 'a b' })] })).toEqual([
      'Signers[0].Id: must be 1 to 64 characters from A-Z, a-z, 0-9, _ and -; got "a b"',
    ]);
    expect(issuesOf({ Signers: [signer({ Id: 'x'.repeat(65) })] })[0]).toMatch(/^Signers\[0\]\.Id: must be 1 to 64/);
    expect(issuesOf({ Signers: [signer({ Id: 'A-1_z' })] })).toEqual([]);
    expect(issuesOf({ Signers: [signer({ Id: 'same' }), signer({ Id: 'same' })] })).toEqual([
      'The signer id is already used by another signer.',
    ]);
  });

  it('assigns Signer1, Signer2, … in order, skipping ids a client took', () => {
    expect(build({ Signers: [signer(), signer()] }).Signers.map((s) => s.Id)).toEqual(['Signer1', 'Signer2']);
    expect(build({ Signers: [signer({ Id: 'Signer2' }), signer(), signer({ Id: 'mine' })] }).Signers.map((s) => s.Id)).toEqual([
      'Signer2',
      'Signer3',
      'mine',
    ]);
  });

  it('applies DaysToExpire: 0/absent → 30, at most 90', () => {
    expect(build({ Signers: [signer()] }).DaysToExpire).toBe(30);
    expect(build({ Signers: [signer()], DaysToExpire: 0 }).DaysToExpire).toBe(30);
    expect(build({ Signers: [signer()], DaysToExpire: 90 }).DaysToExpire).toBe(90);
    expect(build({ Signers: [signer()], DaysToExpire: 10 }).ExpiresDateTime).toBe('2026-12-01T10:00:00.000+00:00');
    expect(issuesOf({ Signers: [signer()], DaysToExpire: 91 })).toEqual([
      'DaysToExpire: must be a whole number from 0 to 90 (0 means the default, 30); got 91',
    ]);
    expect(issuesOf({ Signers: [signer()], DaysToExpire: -1 })).toHaveLength(1);
    expect(issuesOf({ Signers: [signer()], DaysToExpire: 1.5 })).toHaveLength(1);
  });

  it('applies DaysToRemind: 0/absent → 7, -1 off, lower than DaysToExpire', () => {
    expect(build({ Signers: [signer()] }).Signers[0]?.DaysToRemind).toBe(7);
    expect(build({ Signers: [signer({ DaysToRemind: 0 })] }).Signers[0]?.DaysToRemind).toBe(7);
    expect(build({ Signers: [signer({ DaysToRemind: -1 })] }).Signers[0]?.DaysToRemind).toBe(-1);
    // Signhost's exact text (docs/design/api.md#errors).
    expect(issuesOf({ Signers: [signer({ DaysToRemind: 30 })] })).toEqual(['The days to remind must be lower than the days to expire.']);
    expect(issuesOf({ DaysToExpire: 5, Signers: [signer({ DaysToRemind: 0 })] })).toEqual(['The days to remind must be lower than the days to expire.']);
    expect(issuesOf({ Signers: [signer({ DaysToRemind: -2 })] })).toEqual([
      'Signers[0].DaysToRemind: must be -1 (no reminders), 0 (the default, 7) or a positive whole number; got -2',
    ]);
  });

  it('requires SignRequestMessage with SendSignRequest', () => {
    expect(issuesOf({ Signers: [signer({ SendSignRequest: true, SignRequestMessage: undefined })] })).toEqual(['The sign request message is null or empty.']);
    expect(issuesOf({ Signers: [signer({ SendSignRequest: true, SignRequestMessage: 'Please sign' })] })).toEqual([]);
    expect(issuesOf({ Signers: [signer({ SendSignRequest: false })] })).toEqual([]);
  });

  it("SendSignRequest defaults to true (Signhost's default), so a signer without it needs a SignRequestMessage", () => {
    const tx = build({ Signers: [signer(), signer({ SendSignRequest: false, SignRequestMessage: undefined })] });
    expect(tx.Signers.map((s) => [s.SendSignRequest, s.SendSignConfirmation])).toEqual([
      [true, true],
      [false, false],
    ]);
    expect(issuesOf({ Signers: [{ Email: EMAIL }] })).toEqual(['The sign request message is null or empty.']);
    expect(issuesOf({ Signers: [{ Email: EMAIL, SendSignRequest: true, SignRequestMessage: ' ' }] })).toEqual(['The sign request message is null or empty.']);
  });

  it('refuses control characters in subjects and names', () => {
    expect(issuesOf({ Signers: [signer({ SignRequestSubject: 'Hi\nBcc: x' })] })).toEqual([
      'Signer Subject: Input contains one or more invalid characters.',
    ]);
    expect(issuesOf({ Signers: [signer({ ScribbleName: 'A\u0007' })] })).toEqual([
      'Signers[0].ScribbleName: Input contains one or more invalid characters.',
    ]);
    expect(issuesOf({ Seal: true, Receivers: [{ Email: EMAIL, Subject: 'x\r' }] })).toEqual([
      'Receiver Subject: Input contains one or more invalid characters.',
    ]);
    expect(issuesOf({ Seal: true, Receivers: [{ Email: EMAIL, Name: 'x\u0085' }] })).toEqual([
      'Receivers[0].Name: Input contains one or more invalid characters.',
    ]);
    expect(issuesOf({ Signers: [signer({ SignRequestSubject: 'Zoë — contract ✓' })] })).toEqual([]);
  });

  it('checks Language values', () => {
    expect(build({ Seal: true }).Language).toBe('nl-NL');
    expect(issuesOf({ Seal: true, Language: 'en-GB' })).toEqual([
      'Language: must be one of nl-NL, en-US, de-DE, fr-FR, es-ES, it-IT, pl-PL; got "en-GB"',
    ]);
    expect(issuesOf({ Signers: [signer({ Language: 'xx' })] })[0]).toMatch(/^Signers\[0\]\.Language: must be one of/);
  });

  it('limits Context to 64 KiB', () => {
    expect(issuesOf({ Seal: true, Context: { a: 'x'.repeat(64 * 1024 - 8) } })).toEqual([]);
    expect(issuesOf({ Seal: true, Context: { a: 'x'.repeat(64 * 1024) } })).toEqual([
      `Context: at most 64 KiB of JSON; got ${64 * 1024 + 8} bytes`,
    ]);
  });

  it('checks SignRequestMode, URLs, Expires and AllowDelegation', () => {
    expect(issuesOf({ Seal: true, SignRequestMode: 3 })).toEqual([
      'SignRequestMode: must be 1 (all at start) or 2 (each in turn; 0 means 2); got 3',
    ]);
    expect(issuesOf({ Seal: true, PostbackUrl: 'ftp://x' })).toEqual(['PostbackUrl: not an absolute http(s) URL; got "ftp://x"']);
    expect(issuesOf({ Signers: [signer({ ReturnUrl: 'relative/path' })] })).toEqual([
      'Signers[0].ReturnUrl: not an absolute http(s) URL; got "relative/path"',
    ]);
    expect(issuesOf({ Signers: [signer({ Expires: 'tomorrow' })] })).toEqual([
      'Signers[0].Expires: not an ISO 8601 date-time with offset (e.g. 2026-12-31T23:59:59+01:00)',
    ]);
    expect(issuesOf({ Signers: [signer({ Expires: '2026-12-31T23:59:59+01:00' })] })).toEqual([]);
    // AllowDelegation true is stored and echoed; delegation itself is not offered (docs/design/api.md#response-values).
    expect(issuesOf({ Signers: [signer({ AllowDelegation: true })] })).toEqual([]);
    expect(build({ Signers: [signer({ AllowDelegation: true })] }).Signers[0]?.AllowDelegation).toBe(true);
    expect(issuesOf({ Signers: [signer({ AllowDelegation: false })] })).toEqual([]);
  });

  it('checks signer Mobile, BSN and Iban', () => {
    expect(issuesOf({ Signers: [signer({ Mobile: '0612345678' })] })).toEqual([
      'Signers[0].Mobile: not an E.164 phone number (+ and country code, digits only, e.g. +31612345678)',
    ]);
    expect(issuesOf({ Signers: [signer({ BSN: '123456789' })] })).toEqual(['Signers[0].BSN: not a valid BSN (fails the 11-proef)']);
    expect(issuesOf({ Signers: [signer({ BSN: '111222333' })] })).toEqual([]);
    expect(issuesOf({ Signers: [signer({ Iban: 'NL91ABNA0417164301' })] })).toEqual(['Signers[0].Iban: not a valid IBAN']);
    expect(issuesOf({ Signers: [signer({ Iban: 'NL91ABNA0417164300' })] })).toEqual([]);
  });

  it('collects every issue of a request at once', () => {
    const issues = issuesOf({ DaysToExpire: 100, Signers: [signer({ SendSignRequest: false, Email: 'x' }), signer({ Mobile: '1' })] });
    expect(issues).toHaveLength(3);
    expect(() => build({ DaysToExpire: 100, Signers: [signer({ SendSignRequest: false, Email: 'x' })] })).toThrow(ValidationError);
    try {
      build({ Signers: [signer({ SendSignRequest: false, Email: 'x' })] });
    } catch (error) {
      expect((error as ValidationError).code).toBe('INVALID_TRANSACTION');
      expect((error as ValidationError).message).toBe('Signers[0].Email: not a valid e-mail address');
    }
  });
});

describe('verification rules', () => {
  const withVerifications = (...types: object[]) => issuesOf({ Signers: [signer({ Verifications: types as never })] });

  it('gives a signer without verifications [Scribble]', () => {
    expect(build({ Signers: [signer()] }).Signers[0]?.Verifications).toEqual([{ Type: 'Scribble' }]);
    expect(build({ Signers: [signer({ Verifications: [] })] }).Signers[0]?.Verifications).toEqual([{ Type: 'Scribble' }]);
  });

  it('requires the last verification to be Scribble, Consent, PhoneNumber, Email or CSC Qualified', () => {
    for (const last of ['Scribble', 'Consent', 'Email', 'CSC Qualified']) {
      expect(withVerifications({ Type: 'iDIN' }, { Type: last })).toEqual([]);
    }
    expect(withVerifications({ Type: 'PhoneNumber', Number: '+31612345678' })).toEqual([]);
    expect(withVerifications({ Type: 'Consent' }, { Type: 'iDIN' })).toEqual([
      'Signers[0].Verifications: the last verification must be Scribble, Consent, PhoneNumber, Email or CSC Qualified, not iDIN',
    ]);
  });

  it('allows nothing after CSC Qualified', () => {
    expect(withVerifications({ Type: 'CSC Qualified' }, { Type: 'Scribble' })).toEqual([
      'Signers[0].Verifications[1]: nothing may follow CSC Qualified',
    ]);
  });

  it('names unknown types; ignores the ones the service adds (a model posted back after signing)', () => {
    expect(withVerifications({ Type: 'scribble' })).toEqual(['Signers[0].Verifications[0].Type: unknown verification type "scribble"']);
    expect(withVerifications({ Type: 'Scribble' }, { Type: 'IPAddress', IPAddress: '192.0.2.1' })).toEqual([]);
    expect(withVerifications({ Type: 'IPAddress' }, { Type: 'Scribble' })).toEqual([]);
    const tx = build({ Signers: [signer({ Verifications: [{ Type: 'Consent' }, { Type: 'IPAddress', IPAddress: '192.0.2.1' }, { Type: 'SigningCertificate', Subject: 'CN=x' }] })] });
    expect(tx.Signers[0]?.Verifications).toEqual([{ Type: 'Consent' }]);
    expect(build({ Signers: [signer({ Verifications: [{ Type: 'IPAddress', IPAddress: '192.0.2.1' }] })] }).Signers[0]?.Verifications).toEqual([{ Type: 'Scribble' }]);
  });

  it('checks the fields of each verification type', () => {
    expect(withVerifications({ Type: 'PhoneNumber', Number: '0612' })).toEqual([
      'Signers[0].Verifications[0].Number: not an E.164 phone number (+ and country code, digits only, e.g. +31612345678)',
    ]);
    expect(withVerifications({ Type: 'PhoneNumber' })).toEqual(["Signers[0].Verifications[0].Number: is required (or set the signer's Mobile)"]);
    expect(issuesOf({ Signers: [signer({ Mobile: '+31612345678', Verifications: [{ Type: 'PhoneNumber' }] })] })).toEqual([]);
    expect(withVerifications({ Type: 'DigiD', Bsn: '123456789' }, { Type: 'Scribble' })).toEqual([
      'Signers[0].Verifications[0].Bsn: not a valid BSN (fails the 11-proef)',
    ]);
    expect(withVerifications({ Type: 'DigiD', Bsn: '111222333' }, { Type: 'Scribble' })).toEqual([]);
    expect(withVerifications({ Type: 'itsme Identification', PhoneNumber: '+31612345678' }, { Type: 'Scribble' })).toEqual([
      'Signers[0].Verifications[0].PhoneNumber: must be an E.164 number with the Belgian calling code +32 (e.g. +32470123456)',
    ]);
    expect(withVerifications({ Type: 'itsme Identification', PhoneNumber: '+32470123456' }, { Type: 'Scribble' })).toEqual([]);
    expect(withVerifications({ Type: 'Onfido', WorkflowId: 'abc' }, { Type: 'Scribble' })).toEqual([
      'Signers[0].Verifications[0].WorkflowId: not a UUID (e.g. 123e4567-e89b-12d3-a456-426614174000)',
    ]);
    expect(withVerifications({ Type: 'Onfido', WorkflowId: '123e4567-e89b-12d3-a456-426614174000' }, { Type: 'Scribble' })).toEqual([]);
    expect(withVerifications({ Type: 'iDeal', Iban: 'NL00' }, { Type: 'Scribble' })).toEqual([
      'Signers[0].Verifications[0].Iban: not a valid IBAN',
    ]);
    expect(withVerifications({ Type: 'Scribble', ScribbleName: 'a\tb' })).toEqual([
      'Signers[0].Verifications[0].ScribbleName: Input contains one or more invalid characters.',
    ]);
  });

  it('checks authentications', () => {
    const auth = (...a: object[]) => issuesOf({ Signers: [signer({ Authentications: a as never })] });
    expect(auth({ Type: 'PhoneNumber', Number: '+31612345678', SecureDownload: true })).toEqual([]);
    expect(auth({ Type: 'PhoneNumber', Number: '06' })).toEqual([
      'Signers[0].Authentications[0].Number: not an E.164 phone number (+ and country code, digits only, e.g. +31612345678)',
    ]);
    expect(auth({ Type: 'DigiD', Bsn: '123456789' })).toEqual(['Signers[0].Authentications[0].Bsn: not a valid BSN (fails the 11-proef)']);
    expect(auth({ Type: 'iDIN' })).toEqual(['Signers[0].Authentications[0].Type: unknown authentication type "iDIN" (PhoneNumber or DigiD)']);
  });

  it('returns what the client sent unchanged', () => {
    const request: CreateTransactionRequest = {
      Reference: 'R',
      Context: { nested: { a: [1, 'two', null] } },
      Signers: [
        signer({
          IntroText: 'Hello',
          Expires: '2026-12-31T23:59:59+01:00',
          ReturnUrl: 'https://example.com/back',
          Verifications: [{ Type: 'iDIN' }, { Type: 'Scribble', RequireHandsignature: true, ScribbleName: 'Zoë' }],
          Authentications: [{ Type: 'PhoneNumber', Number: '+31612345678' }],
        }),
      ],
      Receivers: [{ Email: 'r@example.com', Message: 'Here', Subject: 'Docs' }],
    };
    const tx = build(request);
    expect(tx.Context).toEqual(request.Context);
    expect(tx.Signers[0]).toMatchObject({
      IntroText: 'Hello',
      Expires: '2026-12-31T23:59:59+01:00',
      ReturnUrl: 'https://example.com/back',
      Verifications: request.Signers?.[0]?.Verifications,
      Authentications: request.Signers?.[0]?.Authentications,
    });
    expect(tx.Receivers[0]).toMatchObject({ Id: 'x-id-1', Email: 'r@example.com', Message: 'Here', Subject: 'Docs' });
    expect(tx.Signers[0]?.SignToken).toBeTypeOf('string');
    expect(tx).toMatchObject({ Status: 5, version: 0, SignRequestMode: 2, Seal: false, CreatedDateTime: '2026-11-21T10:00:00.000+00:00' });
  });
});

describe('identifier checks', () => {
  it('BSN 11-proef: every valid number has exactly one valid last digit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 99_999_999 }), (n) => {
        const prefix = String(n).padStart(8, '0');
        const valid = Array.from({ length: 10 }, (_, d) => prefix + d).filter(isValidBsn);
        return valid.length <= 1;
      }),
      { numRuns: 300 },
    );
    expect(isValidBsn('000000000')).toBe(false);
    expect(isValidBsn('12345678a')).toBe(false);
    expect(isValidBsn('11122233')).toBe(false);
  });

  it('E.164 and +32', () => {
    expect(isE164('+31612345678')).toBe(true);
    expect(isE164('+3161234567890123')).toBe(false);
    expect(isE164('+031612345678')).toBe(false);
    expect(isE164('+31 6 12345678')).toBe(false);
    expect(isBelgianE164('+32470123456')).toBe(true);
    expect(isBelgianE164('+31470123456')).toBe(false);
  });

  it('IBAN mod 97', () => {
    expect(isValidIban('NL91ABNA0417164300')).toBe(true);
    expect(isValidIban('GB82 WEST 1234 5698 7654 32')).toBe(true);
    expect(isValidIban('GB82WEST12345698765433')).toBe(false);
  });
});
