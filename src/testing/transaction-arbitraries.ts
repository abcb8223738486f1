/**
 * fast-check arbitrary of the create-transaction request (`paraph/testing`, docs/design/api.md):
 * every field the service accepts, with valid BSNs (11-proef), IBANs (mod 97), E.164 numbers (+32 for itsme),
 * verification lists in a legal order and DaysToRemind below DaysToExpire, so each value passes both the HTTP schema
 * and `createTransaction`. Built from records and arrays, so counterexamples shrink field by field.
 */
import type { Arbitrary } from 'fast-check';
import { fc, once } from './fast-check.js';
import { type JsonObject } from '../domain/transaction.js';
import { LANGUAGES } from '../i18n/languages.js';
import type { CreateTransactionRequest, ReceiverRequest, SignerRequest, VerificationRequest } from '../domain/transaction-rules.js';
import { printableText } from './file-metadata-arbitraries.js';

/** A valid BSN: eight digits and the check digit the 11-proef asks for (never all zeros). */
export function bsn(): Arbitrary<string> {
  return fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 8, maxLength: 8 }).map((digits) => {
    const ds = [...digits];
    ds[0] = Math.max(1, ds[0] ?? 1);
    for (;;) {
      const sum = ds.reduce((acc, d, i) => acc + d * (9 - i), 0);
      const check = sum % 11;
      if (check <= 9) return `${ds.join('')}${check}`;
      // A remainder of 10 has no check digit: move the last digit on (changes the sum by 2).
      ds[7] = ((ds[7] ?? 0) + 1) % 10;
    }
  });
}

/** A valid Dutch IBAN (`NLkk BANK 0123456789`, check digits by ISO 7064 mod 97-10). */
export function iban(): Arbitrary<string> {
  return fc
    .record({ bank: fc.constantFrom('ABNA', 'INGB', 'RABO', 'TRIO'), account: fc.stringMatching(/^\d{10}$/) })
    .map(({ bank, account }) => {
      const bban = `${bank}${account}`;
      const numeric = `${bban}NL00`.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
      let remainder = 0;
      for (const digit of numeric) remainder = (remainder * 10 + Number(digit)) % 97;
      return `NL${String(98 - remainder).padStart(2, '0')}${bban}`;
    });
}

/** An E.164 number: + country code and subscriber digits (Dutch mobile, Belgian or German). */
export function e164(country?: '31' | '32' | '49'): Arbitrary<string> {
  const code = country === undefined ? fc.constantFrom('31', '32', '49') : fc.constant(country);
  return fc.tuple(code, fc.stringMatching(/^[1-9]\d{7,9}$/)).map(([cc, rest]) => `+${cc}${rest}`);
}

/** An e-mail address both the HTTP schema's `email` format and the domain rule accept. */
export function email(): Arbitrary<string> {
  return fc
    .tuple(fc.stringMatching(/^[a-z0-9]{1,12}(\.[a-z0-9]{1,6})?$/), fc.stringMatching(/^[a-z][a-z0-9]{0,10}$/), fc.constantFrom('com', 'nl', 'org', 'example'))
    .map(([local, host, tld]) => `${local}@${host}.${tld}`);
}

/** DaysToRemind drawn as a fraction of the time left, fixed up once DaysToExpire is known. */
type RemindDraw = { readonly kind: 'off' | 'default' | 'days'; readonly fraction: number };

/** The arbitraries a request is built from, made on first use (fast-check loads only when an arbitrary is asked for). */
const parts = once(() => {
  const url = fc
    .tuple(fc.constantFrom('http', 'https'), fc.stringMatching(/^[a-z][a-z0-9]{0,10}$/), fc.stringMatching(/^[a-z0-9/]{0,20}$/))
    .map(([scheme, host, path]) => `${scheme}://${host}.example/${path}`);

  /** A small JSON object (Context): string, number and boolean values under plain keys. */
  const context: Arbitrary<JsonObject> = fc.dictionary(
    fc.stringMatching(/^[a-z][A-Za-z0-9]{0,8}$/),
    fc.oneof(printableText(20), fc.integer(), fc.boolean()),
    { maxKeys: 4, noNullPrototype: true },
  );

  const timestamp = fc
    .date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2030-12-31T23:59:59Z'), noInvalidDate: true })
    .map((d) => d.toISOString());

  /** Verification types that may come before the last one (not CSC Qualified, not added by the service). */
  const MIDDLE: readonly Arbitrary<VerificationRequest>[] = [
    fc.record({ Type: fc.constant('DigiD'), Bsn: bsn() }, { requiredKeys: ['Type'] }),
    fc.record({ Type: fc.constant('iDeal'), Iban: iban(), AccountHolderName: printableText(30) }, { requiredKeys: ['Type'] }),
    fc.record({ Type: fc.constant('itsme Identification'), PhoneNumber: e164('32') }, { requiredKeys: ['Type'] }),
    fc.record({ Type: fc.constant('Onfido'), WorkflowId: fc.uuid() }, { requiredKeys: ['Type'] }),
    fc.record({ Type: fc.constant('OpenID Providers'), ProviderName: printableText(30) }, { requiredKeys: ['Type'] }),
    fc.record({ Type: fc.constant('eHerkenning'), EntityConcernIdKvkNr: fc.stringMatching(/^\d{8}$/) }, { requiredKeys: ['Type'] }),
    fc.constantFrom<VerificationRequest>({ Type: 'eIDAS Login' }, { Type: 'iDIN' }, { Type: 'SURFnet' }, { Type: 'itsme sign' }),
  ];

  /** Types a list may end with (docs/design/signer-api.md#verification-types). */
  const FINAL: readonly Arbitrary<VerificationRequest>[] = [
    fc.record({ Type: fc.constant('Scribble'), RequireHandsignature: fc.boolean(), ScribbleNameFixed: fc.boolean(), ScribbleName: printableText(40) }, { requiredKeys: ['Type'] }),
    fc.constant<VerificationRequest>({ Type: 'Consent' }),
    fc.record({ Type: fc.constant('PhoneNumber'), Number: e164() }),
    fc.constant<VerificationRequest>({ Type: 'Email' }),
  ];

  /** A legal verification list: any non-final or final methods, then a final one (or CSC Qualified, which ends it). */
  const verifications: Arbitrary<VerificationRequest[]> = fc
    .tuple(
      fc.array(fc.oneof(...MIDDLE, ...FINAL), { maxLength: 3 }),
      fc.oneof(...FINAL, fc.constant<VerificationRequest>({ Type: 'CSC Qualified', Provider: 'test' })),
    )
    .map(([rest, last]) => [...rest, last]);

  const authentication: Arbitrary<VerificationRequest> = fc.oneof(
    fc.record({ Type: fc.constant('PhoneNumber'), Number: e164(), SecureDownload: fc.boolean() }, { requiredKeys: ['Type', 'Number'] }),
    fc.record({ Type: fc.constant('DigiD'), Bsn: bsn() }, { requiredKeys: ['Type'] }),
  );

  const signer = fc.record(
    {
      Id: fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/),
      Email: email(),
      Mobile: e164(),
      Iban: iban(),
      BSN: bsn(),
      Verifications: verifications,
      Authentications: fc.array(authentication, { maxLength: 2 }),
      RequireScribble: fc.boolean(),
      RequireScribbleName: fc.boolean(),
      RequireEmailVerification: fc.boolean(),
      RequireSmsVerification: fc.boolean(),
      RequireIdealVerification: fc.boolean(),
      RequireDigidVerification: fc.boolean(),
      RequireSurfnetVerification: fc.boolean(),
      SendSignRequest: fc.boolean(),
      SendSignConfirmation: fc.boolean(),
      SignRequestMessage: printableText(200, 1).filter((s) => s.trim() !== ''),
      SignRequestSubject: printableText(80),
      remind: fc.record({ kind: fc.constantFrom('off', 'default', 'days'), fraction: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }) }),
      Language: fc.constantFrom(...LANGUAGES),
      ScribbleName: printableText(40),
      ScribbleNameFixed: fc.boolean(),
      Reference: printableText(60),
      ReturnUrl: url,
      IntroText: printableText(200),
      AllowDelegation: fc.constant(false),
      Expires: timestamp,
      Context: context,
    },
    { requiredKeys: ['Email'] },
  );

  const receiver: Arbitrary<ReceiverRequest> = fc.record(
    {
      Name: printableText(40),
      Email: email(),
      Language: fc.constantFrom(...LANGUAGES),
      Message: printableText(200),
      Subject: printableText(80),
      Reference: printableText(60),
      Context: context,
    },
    { requiredKeys: ['Email'] },
  );
  return { url, context, signer, receiver };
});

type SignerDraw = ReturnType<typeof parts>['signer'] extends Arbitrary<infer T> ? T : never;

function fixSigner(draw: SignerDraw, index: number, daysToExpire: number): SignerRequest {
  const { remind, ...rest } = draw as SignerDraw & { remind?: RemindDraw };
  const out: SignerRequest = { ...rest };
  // Ids must be unique in the transaction: suffix the position.
  if (out.Id !== undefined) out.Id = `${out.Id.slice(0, 40)}_${index}`;
  if ((out.SendSignRequest ?? true) && out.SignRequestMessage === undefined) out.SignRequestMessage = 'Please sign.';
  if (remind !== undefined) {
    if (remind.kind === 'off') out.DaysToRemind = -1;
    else if (remind.kind === 'default' && daysToExpire > 7) out.DaysToRemind = 0;
    else if (remind.kind === 'days' && daysToExpire > 1) out.DaysToRemind = 1 + Math.floor(remind.fraction * (daysToExpire - 1));
  }
  if (out.Authentications?.length === 0) delete out.Authentications;
  return out;
}

/**
 * A valid create-transaction request (POST /api/transaction body): Seal and/or 1–3 signers with every accepted signer
 * field (optional each), 0–2 receivers, Reference, PostbackUrl, SignRequestMode, DaysToExpire, SendEmailNotifications,
 * Language and Context.
 *
 * @example
 * fc.assert(fc.property(createTransactionRequest(), (body) => { validateCreateRequest(body).length === 0; }));
 */
export function createTransactionRequest(): Arbitrary<CreateTransactionRequest> {
  const { signer, receiver, url, context } = parts();
  return fc
    .record(
      {
        Seal: fc.boolean(),
        Signers: fc.array(signer, { maxLength: 3 }),
        Receivers: fc.array(receiver, { maxLength: 2 }),
        Reference: printableText(60),
        PostbackUrl: url,
        SignRequestMode: fc.constantFrom(0, 1, 2),
        DaysToExpire: fc.integer({ min: 0, max: 90 }),
        SendEmailNotifications: fc.boolean(),
        Language: fc.constantFrom(...LANGUAGES),
        Context: context,
      },
      { requiredKeys: [] },
    )
    .map(({ Signers, ...rest }) => {
      const daysToExpire = rest.DaysToExpire === undefined || rest.DaysToExpire === 0 ? 30 : rest.DaysToExpire;
      const out: CreateTransactionRequest = { ...rest };
      const signers = (Signers ?? []).map((s, i) => fixSigner(s, i, daysToExpire));
      if (signers.length > 0) out.Signers = signers;
      else if (Signers !== undefined) out.Signers = [];
      // Nor seal nor signers is refused: without signers the request seals.
      if (signers.length === 0) out.Seal = true;
      return out;
    });
}
