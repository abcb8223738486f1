/**
 * The SAML 2.0 endpoints of paraph as a service provider (docs/verifications.md#saml-20): the assertion consumer
 * service (HTTP-POST binding) where identity providers post the signer's SAMLResponse with paraph's state as
 * RelayState, and each SAML provider's service-provider metadata at `/sign/identity/saml/metadata/<Type>` (an
 * account's own provider: `/sign/identity/saml/metadata/<Type>/<account id>`).
 */
import { contextOf } from './request-trace.js';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { ParaphError } from '../errors.js';
import type { ServiceContext } from '../service/context.js';
import { SAML_ACS_PATH, SAML_METADATA_PATH, type SamlIdentityProvider } from '../service/identity/saml-identity-provider.js';
import { callbackSignerToken, completeIdentityCallback } from '../service/signer/complete-identity.js';
import { findSignerByToken } from '../service/signer/signer-access.js';
import type { IdentityProvider } from '../service/delivery/verification-senders.js';
import { statusOf } from './error-map.js';
import { renderSignErrorPage } from './sign-page-html.js';
import { apiErrorText } from './sign-page-error-texts.js';
import { signPageTexts } from './sign-page-texts.js';
import { securityHeaders } from './sign-page.routes.js';

/**
 * The largest form the assertion consumer service reads. A SAMLResponse with an encrypted, signed assertion is tens of
 * KB; the service reads this much XML from anyone, so it stays far below the service's general body limit.
 */
const ACS_BODY_LIMIT = 256 * 1024;

function isSaml(provider: IdentityProvider): provider is SamlIdentityProvider {
  return (provider as Partial<SamlIdentityProvider>).protocol === 'saml';
}

/** Registers the assertion consumer service and the metadata route. */
export function samlRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (app) => {
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: ACS_BODY_LIMIT }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    const metadata = async (provider: IdentityProvider | undefined, reply: FastifyReply) => {
      if (provider === undefined || !isSaml(provider)) return reply.code(404).type('text/plain').send('No SAML identity provider is configured for this verification type.');
      return reply.header('cache-control', 'public, max-age=3600').type('application/samlmetadata+xml; charset=utf-8').send(await provider.serviceProviderMetadata());
    };
    app.get<{ Params: { type: string } }>(`${SAML_METADATA_PATH}/:type`, async (request, reply) => await metadata(ctx.identityProviders?.get(request.params.type), reply));
    // An account's own SAML provider of a Type (docs/verifications.md#per-account-providers).
    app.get<{ Params: { type: string; account: string } }>(`${SAML_METADATA_PATH}/:type/:account`, async (request, reply) =>
      await metadata(ctx.accountIdentityProviders?.get(request.params.account)?.get(request.params.type), reply));
    app.post<{ Body: Record<string, string> | undefined }>(SAML_ACS_PATH, {
      bodyLimit: ACS_BODY_LIMIT,
      errorHandler: (error, request, reply) => {
        if ((error as { code?: unknown }).code !== 'FST_ERR_CTP_BODY_TOO_LARGE') throw error;
        // A signer's browser posted this: a page in their language (the operator's log says why), not the API's JSON.
        request.log.warn(`refused a SAML response larger than ${ACS_BODY_LIMIT / 1024} KB at the assertion consumer service`);
        const texts = signPageTexts(request.headers['accept-language']);
        return securityHeaders(reply).code(413).header('cache-control', 'no-store').type('text/html; charset=utf-8')
          .send(renderSignErrorPage(texts, texts.errorHeading, apiErrorText(texts, 'IDENTITY_NOT_ESTABLISHED', 413), '../../../'));
      },
    }, async (request, reply) => {
      securityHeaders(reply).header('cache-control', 'no-store');
      const body = typeof request.body === 'object' && request.body !== null ? request.body : {};
      const relayState = typeof body.RelayState === 'string' ? body.RelayState : '';
      const query = { state: relayState, SAMLResponse: typeof body.SAMLResponse === 'string' ? body.SAMLResponse : '' };
      try {
        const token = await completeIdentityCallback(contextOf(ctx, request), query, `${ctx.settings.publicUrl}${SAML_ACS_PATH}`);
        // Relative to /sign/identity/saml/acs, so that it works under any prefix.
        return reply.redirect(`../../${encodeURIComponent(token)}`, 303);
      } catch (error) {
        if (!(error instanceof ParaphError) || error.origin !== 'input') throw error;
        const token = await callbackSignerToken(contextOf(ctx, request), relayState).catch(() => undefined);
        const language = token === undefined ? request.headers['accept-language'] : await signerLanguage(ctx, token);
        const texts = signPageTexts(language);
        const status = statusOf(error);
        const back = token === undefined ? undefined : `../../${encodeURIComponent(token)}`;
        return reply.code(status).header('x-paraph-error', error.code).type('text/html; charset=utf-8')
          .send(renderSignErrorPage(texts, texts.errorHeading, apiErrorText(texts, error.code, status), '../../../', back));
      }
    });
  };
}

async function signerLanguage(ctx: ServiceContext, token: string): Promise<string | undefined> {
  try {
    const { transaction, signer } = await findSignerByToken(ctx, token);
    return signer.Language ?? transaction.Language;
  } catch {
    return undefined;
  }
}
