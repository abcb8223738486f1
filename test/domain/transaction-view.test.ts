import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ACTIVITY_KEYS,
  PARTIAL_TRANSACTION_KEYS,
  RECEIVER_KEYS,
  SIGNER_KEYS,
  TRANSACTION_KEYS,
  buildFileUrl,
  toPartialTransactionView,
  toTransactionView,
  type JsonResponse,
} from '../../src/domain/transaction-view.js';
import { putFile, recordActivity, transition, type Transaction } from '../../src/domain/transaction.js';
import type { CreateTransactionRequest, SignerRequest } from '../../src/domain/transaction-rules.js';
import { at, makeTransaction, T0 } from '../store/transaction-fixtures.js';

const BASE = 'https://sign.example.com/';

const signerArb: fc.Arbitrary<SignerRequest> = fc.record(
  {
    Email: fc.constant('s@example.com'),
    // Invited by default, so the message an invitation needs.
    SignRequestMessage: fc.constant('Please sign.'),
    Mobile: fc.constant('+31612345678'),
    Reference: fc.string({ maxLength: 8 }),
    ScribbleName: fc.constantFrom('Zoë', 'Jan'),
    SendSignConfirmation: fc.boolean(),
    RequireScribble: fc.boolean(),
    IntroText: fc.string({ maxLength: 8 }),
    Context: fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.string(), fc.integer(), fc.constant(null))),
    Language: fc.constantFrom('en-US', 'de-DE'),
  },
  { requiredKeys: ['Email', 'SignRequestMessage'] },
);

const requestArb: fc.Arbitrary<CreateTransactionRequest> = fc.record(
  {
    Seal: fc.constant(true),
    Reference: fc.string({ maxLength: 8 }),
    PostbackUrl: fc.constant('https://example.com/pb'),
    SendEmailNotifications: fc.boolean(),
    Context: fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.string(), fc.integer(), fc.constant(null))),
    Signers: fc.array(signerArb, { maxLength: 3 }),
    Receivers: fc.array(fc.record({ Email: fc.constant('r@example.com'), Name: fc.constantFrom('R', 'Q') }, { requiredKeys: ['Email'] }), {
      maxLength: 2,
    }),
  },
  { requiredKeys: ['Seal'] },
);

function withExtras(tx: Transaction, activity: boolean, cancel: boolean): Transaction {
  let result = putFile(tx, { FileId: 'a b/ü.pdf', Original: { sha256: 'a'.repeat(64), size: 1, pages: 1 } }, T0);
  if (activity && result.Signers.length > 0) {
    result = recordActivity(result, { signerId: result.Signers[0]?.Id as string }, { id: 'act', code: 103 }, at(1));
  }
  if (cancel) result = transition(result, { type: 'cancel', reason: 'r' }, at(2));
  return result;
}

function stripNullsDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripNullsDeep);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, stripNullsDeep(v)]));
  }
  return value;
}

function nestedObjects(view: JsonResponse): { keys: readonly string[]; value: JsonResponse }[] {
  const out: { keys: readonly string[]; value: JsonResponse }[] = [{ keys: TRANSACTION_KEYS, value: view }];
  for (const signer of (view.Signers ?? []) as JsonResponse[]) {
    out.push({ keys: SIGNER_KEYS, value: signer });
    for (const activity of signer.Activities as JsonResponse[]) out.push({ keys: ACTIVITY_KEYS, value: activity });
  }
  for (const receiver of (view.Receivers ?? []) as JsonResponse[]) out.push({ keys: RECEIVER_KEYS, value: receiver });
  return out;
}

describe('transaction view', () => {
  it('v1 has every documented key, v2 has no null, and they agree on every value', () => {
    fc.assert(
      fc.property(requestArb, fc.boolean(), (request, activity) => {
        const tx = withExtras(makeTransaction(request), activity, false);
        const v1 = toTransactionView(tx, { version: 1, baseUrl: BASE });
        const v2 = toTransactionView(tx, { version: 2, baseUrl: BASE });
        // Info and CancelationReason are left out of both versions when there is none
        // (docs/design/api.md#response-values).
        for (const { keys, value } of nestedObjects(v1)) {
          expect(Object.keys(value)).toEqual(keys.filter((key) => value[key] !== undefined || (key !== 'Info' && key !== 'CancelationReason')));
        }
        for (const { keys, value } of nestedObjects(v2)) {
          for (const [key, field] of Object.entries(value)) {
            expect(keys).toContain(key);
            expect(field).not.toBeNull();
          }
        }
        // Never null where the .NET models declare a non-nullable type (docs/design/api.md#response-values).
        for (const key of ['Status', 'Seal', 'Files', 'Signers', 'Receivers', 'SignRequestMode', 'DaysToExpire', 'SendEmailNotifications', 'CreatedDateTime']) {
          expect(v1[key], key).not.toBeNull();
        }
        expect([1, 2]).toContain(v1.SignRequestMode);
        for (const signer of v1.Signers as JsonResponse[]) {
          for (const key of ['SendSignRequest', 'SendSignConfirmation', 'AllowDelegation', 'ScribbleNameFixed', 'Authentications', 'Verifications', 'Activities', 'Language', 'DaysToRemind']) {
            expect(signer[key], key).not.toBeNull();
          }
        }
        // Dropping every null (also inside Context, equally on both sides) turns v1 into v2.
        expect(stripNullsDeep(v1)).toEqual(stripNullsDeep(v2));
        expect(v2.Context).toEqual(request.Context);
        expect(JSON.parse(JSON.stringify(v2))).toEqual(v2);
      }),
      { numRuns: 150 },
    );
  });

  it('builds absolute links, SignUrls and the spec timestamp format; hides internal fields', () => {
    const tx = withExtras(makeTransaction(), true, false);
    const view = toTransactionView(tx, { version: 2, baseUrl: BASE });
    expect(view.Files).toEqual({
      'a b/ü.pdf': {
        Links: [{ Rel: 'file', Type: 'application/pdf', Link: 'https://sign.example.com/api/transaction/tx-1/file/a%20b%2F%C3%BC.pdf' }],
        DisplayName: 'a b/ü.pdf',
      },
    });
    const signers = view.Signers as JsonResponse[];
    expect(signers[0]?.SignUrl).toBe(`https://sign.example.com/sign/${tx.Signers[0]?.SignToken}`);
    expect(view.CreatedDateTime).toBe('2026-11-21T10:00:00.000+00:00');
    const text = JSON.stringify(view);
    for (const hidden of ['AccountId', 'SignToken', 'version', 'sha256', 'ExpiresDateTime', 'cleanedAt']) expect(text).not.toContain(hidden);
    expect(signers[0]?.ShowUrl).toBe(`https://sign.example.com/show/${tx.Signers[0]?.SignToken}`);
    expect(signers[0]?.ReceiptUrl).toBe(`https://sign.example.com/receipt/${tx.Signers[0]?.SignToken}`);
    // Defaults the client did not send are those Signhost returns (docs/design/api.md#response-values), never null.
    expect(signers[0]).toMatchObject({
      SendSignRequest: true,
      SendSignConfirmation: true,
      AllowDelegation: false,
      ScribbleNameFixed: false,
      RequireScribble: true,
      RequireSmsVerification: false,
      Authentications: [],
      Language: tx.Language,
      DaysToRemind: 7,
      Verifications: [{ Type: 'Scribble' }],
    });
  });

  it('lists only files with a PDF, and a fileId such as __proto__ as an ordinary key', () => {
    let tx = putFile(makeTransaction(), { FileId: 'metadata-only' }, T0);
    tx = putFile(tx, { FileId: '__proto__', DisplayName: 'Proto', Original: { sha256: 'b'.repeat(64), size: 1, pages: 1 } }, T0);
    const files = toTransactionView(tx, { version: 1, baseUrl: BASE }).Files as JsonResponse;
    expect(Object.keys(files)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(files)).toBe(Object.prototype);
    const parsed = JSON.parse(JSON.stringify(files)) as object;
    expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).toMatchObject({ DisplayName: 'Proto' });
    expect(buildFileUrl('http://h:1', 't', 'x?y')).toBe('http://h:1/api/transaction/t/file/x%3Fy');
  });

  it('shows a cleaned transaction partially, with the cancellation', () => {
    const tx = withExtras(makeTransaction(), true, true);
    const v1 = toPartialTransactionView(tx, { version: 1 });
    expect(Object.keys(v1)).toEqual(PARTIAL_TRANSACTION_KEYS);
    expect(v1).toEqual({
      Id: 'tx-1',
      Status: 60,
      Reference: 'ref-1',
      CreatedDateTime: '2026-11-21T10:00:00.000+00:00',
      ModifiedDateTime: '2026-11-21T10:02:00.000+00:00',
      CanceledDateTime: '2026-11-21T10:02:00.000+00:00',
      CancelationReason: 'r',
      Signers: [{ Id: 'Signer1' }, { Id: 'Signer2' }],
    });
    const v2 = toPartialTransactionView(makeTransaction({ Seal: true }), { version: 2 });
    expect(v2).toEqual({
      Id: 'tx-1',
      Status: 5,
      CreatedDateTime: '2026-11-21T10:00:00.000+00:00',
      ModifiedDateTime: '2026-11-21T10:00:00.000+00:00',
      Signers: [],
    });
    // The full view of a cleaned transaction no longer carries SignUrls (the tokens are gone).
    const full = toTransactionView(tx, { version: 2, baseUrl: BASE });
    expect((full.Signers as JsonResponse[])[0]).not.toHaveProperty('SignUrl');
  });
});
