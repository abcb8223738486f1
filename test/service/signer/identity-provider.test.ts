/**
 * External identity methods through the provider interface (docs/design/signer-api.md#verification-types): a configured
 * provider lets the transaction start; the signer is sent to the provider and comes back to /sign/<token>/identity with
 * paraph's one-time state; the provider's verdict decides, its evidence is audited; a used or forged state is refused.
 */
import { describe, expect, it } from 'vitest';
import { CATALOGUES } from '../../../src/i18n/catalogue.js';
import type { IdentityProvider } from '../../../src/service/delivery/verification-senders.js';
import { call, startTestService } from '../../helpers/service-harness.js';
import { createSigningTransaction } from './signer-fixture.js';

/** A provider that "verifies" by bouncing straight back with `result` and `bin` in the query. */
const fakeIdin = (result: () => string): IdentityProvider => ({
  type: 'iDIN',
  begin: async ({ returnUrl }) => ({ redirectUrl: `${returnUrl}&result=${result()}&bin=BIN123` }),
  complete: async ({ query }) => {
    if (query.result !== 'ok') throw new Error(`the bank answered ${query.result ?? 'nothing'}`);
    return { evidence: { bin: query.bin ?? '' } };
  },
});

describe('identity providers', () => {
  it('iDIN through a configured provider: refused answer, then confirmed; state is one-time', async () => {
    let answer = 'cancelled';
    const service = await startTestService({ identityProviders: [fakeIdin(() => answer)] });
    const server = service.server;
    try {
      const tx = await createSigningTransaction(server.url, { signers: [{ Email: 'i@example.com', Verifications: [{ Type: 'iDIN' }, { Type: 'Consent' }] }] });
      const token = tx.signers[0]!.token;
      const post = () => call(server.url, 'POST', `/api/signer/${token}/verification`, { auth: false, json: { Type: 'iDIN' } });

      const first = await post();
      expect(first.status).toBe(200);
      expect(first.json.RedirectUrl).toMatch(new RegExp(`^${server.url}/sign/${token}/identity\\?state=[A-Za-z0-9_-]{22}&result=cancelled`));
      const refused = await fetch(first.json.RedirectUrl, { redirect: 'manual' });
      expect(refused.status).toBe(400);
      // Shown in the signer's language, not in the provider's English.
      expect(await refused.text()).toContain(CATALOGUES['nl-NL'] /* the default Language */.page.apiErrors.identityFailed);

      answer = 'ok';
      const second = await post();
      const forged = await fetch(second.json.RedirectUrl.replace(/state=[^&]+/, 'state=AAAAAAAAAAAAAAAAAAAAAA'), { redirect: 'manual' });
      expect(forged.status).toBe(400);
      const back = await fetch(second.json.RedirectUrl, { redirect: 'manual' });
      expect(back.status).toBe(303);
      // Relative, so that it holds under any mount prefix; it resolves to the signing page.
      expect(new URL(back.headers.get('location') ?? '', second.json.RedirectUrl).pathname).toBe(`/sign/${token}`);
      expect((await fetch(second.json.RedirectUrl, { redirect: 'manual' })).status).toBe(400); // used

      const session = await call(server.url, 'GET', `/api/signer/${token}`, { auth: false });
      expect(session.json.Verifications.map((v: { Type: string; Done: boolean }) => [v.Type, v.Done])).toEqual([['iDIN', true], ['Consent', false]]);
      const audit = await server.store.listAuditEntries(tx.id);
      expect(audit.filter((e) => e.type === 'verification.performed').map((e) => e.data)).toEqual([
        // The refused answer used its state up and is on record.
        { signerId: 'Signer1', verification: 'iDIN', result: 'failed', evidence: { reason: expect.stringContaining('the bank answered cancelled') } },
        { signerId: 'Signer1', verification: 'iDIN', result: 'passed', evidence: { bin: 'BIN123' } },
      ]);
    } finally {
      await service.dispose();
    }
  });
});
