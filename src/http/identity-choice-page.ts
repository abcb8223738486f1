/**
 * The page where a signer picks one of the organisation's identity providers (`OpenID Providers` whose Verification
 * names none of them, docs/verifications.md#openid-providers): one link per provider, each starting its login. Pure.
 */
import { escapeHtml, pageTop } from './sign-page-html.js';
import type { SignPageTexts } from './sign-page-texts.js';

/** The list page; `links` are relative to the page, `root` leads back to the service's root. */
export function renderIdentityChoicePage(t: SignPageTexts, links: readonly { name: string; href: string }[], root: string): string {
  const e = escapeHtml;
  const items = links.map((l) => `<li><a class="button" href="${e(l.href)}">${e(l.name)}</a></li>`).join('');
  return `${pageTop(t, t.chooseProviderHeading, root)}
<main id="main" class="container" tabindex="-1"><section class="card message" aria-labelledby="choice-title"><h1 id="choice-title">${e(t.chooseProviderHeading)}</h1><p>${e(t.chooseProviderText)}</p><ul class="choices">${items}</ul></section></main>
</body>
</html>
`;
}
