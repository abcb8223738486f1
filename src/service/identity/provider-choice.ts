/**
 * Several providers of one verification Type (`OpenID Providers`), picked by the Verification's `ProviderName`. When it
 * names none of them, the signer is sent to paraph's list of the organisation's providers and picks one there
 * (docs/verifications.md#openid-providers).
 */
import type { IdentityProvider } from '../delivery/verification-senders.js';

/** Key of the chosen provider's name among the pending values. */
const CHOSEN = 'choice';

/** One provider that picks among `providers` by name. */
export function createProviderChoice(type: string, providers: readonly { name: string; provider: IdentityProvider }[]): IdentityProvider {
  const byName = new Map(providers.map((p) => [p.name, p.provider]));
  return {
    type,
    choices: providers.map((p) => p.name),
    async begin(request) {
      const wanted = request.choice ?? request.verification.ProviderName;
      const provider = typeof wanted === 'string' ? byName.get(wanted) : undefined;
      if (provider === undefined) return { redirectUrl: request.chooseUrl };
      const begun = await provider.begin(request);
      return { redirectUrl: begun.redirectUrl, pending: { ...begun.pending, [CHOSEN]: wanted as string } };
    },
    async complete(request) {
      const { [CHOSEN]: name, ...pending } = request.pending;
      const provider = name === undefined ? undefined : byName.get(name);
      if (provider === undefined) throw new Error('no provider was chosen');
      return await provider.complete({ ...request, pending });
    },
  };
}
