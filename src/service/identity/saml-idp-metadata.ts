/**
 * What paraph needs from a SAML 2.0 identity provider's metadata (docs/verifications.md#saml-20): its entity id, the
 * address of its single sign-on service for the HTTP-Redirect binding, and the certificates it signs with. Read once
 * when the configuration is loaded; an unusable document stops the start with what is missing.
 */
import { Parser, processors } from 'xml2js';

const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** The identity provider as its metadata describes it. */
export interface IdpMetadata {
  readonly entityId: string;
  /** Where the signer's browser is sent with the AuthnRequest (HTTP-Redirect binding). */
  readonly ssoRedirectUrl: string;
  /** Its signing certificates, base64 DER (several during a key rollover). */
  readonly signingCertificates: readonly string[];
}

/** An element as xml2js gives it (prefixes stripped): attributes under `$`, text under `_`, children by name. */
interface Node {
  readonly $?: Readonly<Record<string, string>>;
  readonly _?: string;
  readonly [child: string]: unknown;
}

function children(node: Node | undefined, name: string): Node[] {
  const value = node?.[name];
  return Array.isArray(value) ? (value as Node[]) : [];
}

/**
 * Reads `xml`, an EntityDescriptor (or an EntitiesDescriptor holding exactly one identity provider).
 *
 * @throws Error naming what the metadata lacks.
 */
export async function parseIdpMetadata(xml: string): Promise<IdpMetadata> {
  if (/<!DOCTYPE/i.test(xml)) throw new Error('metadata with a DOCTYPE is not accepted');
  let root: Record<string, Node>;
  try {
    root = (await new Parser({ explicitCharkey: true, tagNameProcessors: [processors.stripPrefix] }).parseStringPromise(xml)) as Record<string, Node>;
  } catch (error) {
    throw new Error(`the metadata is not well-formed XML (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
  }
  const entities = root.EntityDescriptor !== undefined ? [root.EntityDescriptor] : children(root.EntitiesDescriptor, 'EntityDescriptor');
  const withIdp = entities.flatMap((entity) => children(entity, 'IDPSSODescriptor').map((idp) => ({ entity, idp })));
  if (withIdp.length !== 1) throw new Error(`expected one IDPSSODescriptor in the metadata, found ${withIdp.length}`);
  const { entity, idp } = withIdp[0]!;
  const entityId = entity.$?.entityID ?? '';
  if (entityId === '') throw new Error('the metadata names no entityID');
  const sso = children(idp, 'SingleSignOnService').find((e) => e.$?.Binding === REDIRECT_BINDING);
  const ssoRedirectUrl = sso?.$?.Location ?? '';
  if (!URL.canParse(ssoRedirectUrl)) throw new Error('the metadata has no SingleSignOnService with the HTTP-Redirect binding');
  const signingCertificates = children(idp, 'KeyDescriptor')
    .filter((k) => (k.$?.use ?? 'signing') === 'signing')
    .flatMap((k) => children(k, 'KeyInfo').flatMap((info) => children(info, 'X509Data')).flatMap((data) => children(data, 'X509Certificate')))
    .map((c) => (c._ ?? '').replace(/\s+/g, ''))
    .filter((c) => c !== '');
  if (signingCertificates.length === 0) throw new Error('the metadata has no signing certificate (KeyDescriptor with an X509Certificate)');
  return { entityId, ssoRedirectUrl, signingCertificates };
}
