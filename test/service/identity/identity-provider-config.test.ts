/**
 * The identity providers file (docs/verifications.md#configuration): entries become providers per Type, client
 * secrets are accepted sealed under the master key (as `paraph seal-secret` prints them) or from a named environment
 * variable and refused in clear, and every problem is named with the entry it is in. A SAML entry reads the identity
 * provider's metadata from a file next to the configuration and its SP key sealed.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealSecretCommandWith } from '../../../src/cli/seal-secret.js';
import { CLIENT_SECRET_PURPOSE, loadIdentityProviders } from '../../../src/service/identity/identity-provider-config.js';
import { createMasterKey } from '../../../src/store/master-key.js';

const keyBytes = randomBytes(32);
const key = createMasterKey(keyBytes);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paraph-idp-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(content: unknown): Promise<string> {
  const path = join(dir, `${randomBytes(4).toString('hex')}.json`);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

const entry = (extra: Record<string, unknown> = {}) => ({ type: 'itsme Identification', issuer: 'https://idp.example.com', clientId: 'paraph', ...extra });

describe('identity providers file', () => {
  it('builds one provider per Type, with a sealed secret or one from the environment', async () => {
    const providers = await loadIdentityProviders(
      await file({ providers: [entry({ clientSecret: key.seal('s3cret', CLIENT_SECRET_PURPOSE) }), entry({ type: 'iDIN', clientSecretEnv: 'IDIN_SECRET', userinfo: true, acrLevels: { a: 'High' } })] }),
      key,
      { IDIN_SECRET: 'other' },
    );
    expect(providers.map((p) => p.type)).toEqual(['itsme Identification', 'iDIN']);
  });

  it('several named OpenID Providers become one choice; unnamed ones of one Type are refused', async () => {
    const [choice] = await loadIdentityProviders(await file({ providers: [entry({ type: 'OpenID Providers', name: 'A' }), entry({ type: 'OpenID Providers', name: 'B' })] }), key, {});
    expect(choice?.choices).toEqual(['A', 'B']);
    await expect(loadIdentityProviders(await file({ providers: [entry(), entry()] }), key, {})).rejects.toThrow(/distinct "name"/);
  });

  it.each([
    ['a secret in clear', { providers: [entry({ clientSecret: 'plain' })] }, /providers\[0\]\.clientSecret: write it sealed/],
    ['a missing environment variable', { providers: [entry({ clientSecretEnv: 'NOPE' })] }, /clientSecretEnv: the environment variable "NOPE" is not set/],
    ['an http issuer', { providers: [entry({ issuer: 'http://idp.example.com' })] }, /issuer: an https:\/\/ URL/],
    ['no client id', { providers: [entry({ clientId: undefined })] }, /providers\[0\]\.clientId: required/],
    ['an unknown protocol', { providers: [entry({ protocol: 'saml2' })] }, /protocol: "saml2" is not supported \(use openid-connect, saml\)/],
    ['a bad timeout', { providers: [entry({ timeoutSeconds: 0 })] }, /timeoutSeconds/],
    ['not a providers list', { other: [] }, /expected \{"providers"/],
    ['not JSON', '{', /JSON/],
  ])('refuses %s, naming it', async (_name, content, message) => {
    await expect(loadIdentityProviders(await file(content), key, {})).rejects.toThrow(message);
  });

  it('a secret sealed under another key does not open', async () => {
    const other = createMasterKey(randomBytes(32));
    await expect(loadIdentityProviders(await file({ providers: [entry({ clientSecret: other.seal('x', CLIENT_SECRET_PURPOSE) })] }), key, {})).rejects.toThrow();
  });

  it('paraph seal-secret prints a value the file accepts', async () => {
    const out: string[] = [];
    const io = { stdout: (t: string) => out.push(t), stderr: (t: string) => out.push(t), stderrIsTerminal: false };
    const previous = process.env.PARAPH_MASTER_KEY;
    process.env.PARAPH_MASTER_KEY = keyBytes.toString('base64');
    try {
      expect(await sealSecretCommandWith(async () => 'from-stdin\n')([], io)).toBe(0);
    } finally {
      if (previous === undefined) delete process.env.PARAPH_MASTER_KEY;
      else process.env.PARAPH_MASTER_KEY = previous;
    }
    const sealed = out.join('').trim();
    expect(sealed).not.toContain('from-stdin');
    expect(key.open(sealed, CLIENT_SECRET_PURPOSE)).toBe('from-stdin');
  });

  describe('SAML entries', () => {
    let pem: { key: string; cert: string };
    const metadata = (cert: string, sso = '<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.nl/sso"/>') =>
      '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://idp.example.nl">'
      + '<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>'
      + cert.replace(/-----[^-]+-----|\s/g, '') + `</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>${sso}</md:IDPSSODescriptor></md:EntityDescriptor>`;
    const saml = (extra: Record<string, unknown> = {}) => ({
      type: 'DigiD', protocol: 'saml', spEntityId: 'https://paraph.example.nl/sp', idpMetadataFile: 'idp-metadata.xml',
      spPrivateKey: key.seal(pem.key, CLIENT_SECRET_PURPOSE), spCertificate: pem.cert, levels: { 'urn:oasis:names:tc:SAML:2.0:ac:classes:Smartcard': 'Hoog' }, ...extra,
    });

    beforeAll(async () => {
      await promisify(execFile)('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'sp.key'), '-out', join(dir, 'sp.pem'), '-subj', '/CN=sp', '-days', '2']);
      pem = { key: await readFile(join(dir, 'sp.key'), 'utf8'), cert: await readFile(join(dir, 'sp.pem'), 'utf8') };
      await writeFile(join(dir, 'idp-metadata.xml'), metadata(pem.cert));
    });

    it('builds a SAML provider whose SP metadata names the entity id and the assertion consumer service', async () => {
      const [provider] = await loadIdentityProviders(await file({ providers: [saml()] }), key, {}, { publicUrl: () => 'https://sign.example.nl', clock: () => new Date() });
      expect(provider?.type).toBe('DigiD');
      const xml = await (provider as unknown as { serviceProviderMetadata(): Promise<string> }).serviceProviderMetadata();
      expect(xml).toContain('entityID="https://paraph.example.nl/sp"');
      expect(xml).toContain('Location="https://sign.example.nl/sign/identity/saml/acs"');
    });

    it('an entry naming Accounts serves those accounts; one without serves every account', async () => {
      const providers = await loadIdentityProviders(await file({ providers: [saml(), saml({ Accounts: ['acc-b', 'acc-c'], spEntityId: 'https://paraph.example.nl/sp-b' })] }), key, {});
      expect(providers.map((p) => [p.type, p.accounts])).toEqual([['DigiD', undefined], ['DigiD', ['acc-b', 'acc-c']]]);
    });

    it('named providers of one Type for the same Accounts become one choice for those accounts', async () => {
      const providers = await loadIdentityProviders(await file({ providers: [saml({ type: 'OpenID Providers', name: 'A', Accounts: ['acc-b'] }), saml({ type: 'OpenID Providers', name: 'B', Accounts: ['acc-b'] })] }), key, {});
      expect(providers.map((p) => [p.choices, p.accounts])).toEqual([[['A', 'B'], ['acc-b']]]);
    });

    it.each([
      ['Accounts that is not a list', () => saml({ Accounts: 'acc-b' }), /Accounts: an array of strings/],
      ['an empty Accounts', () => saml({ Accounts: [] }), /Accounts: account ids/],
    ])('refuses %s, naming it', async (_name, content, message) => {
      await expect(loadIdentityProviders(await file({ providers: [content()] }), key, {})).rejects.toThrow(message);
    });

    it('refuses two providers of one Type for an account under different Accounts lists', async () => {
      await expect(loadIdentityProviders(await file({ providers: [saml({ Accounts: ['acc-b'] }), saml({ Accounts: ['acc-b', 'acc-c'] })] }), key, {})).rejects.toThrow(/account "acc-b" is named by two providers/);
    });

    it.each([
      ['an SP key in clear', () => saml({ spPrivateKey: pem.key }), /spPrivateKey: write it sealed/],
      ['no SP key', () => saml({ spPrivateKey: undefined }), /spPrivateKey: required/],
      ['metadata without a redirect sign-on service', () => saml({ idpMetadataFile: undefined, idpMetadata: metadata(pem.cert, '') }), /HTTP-Redirect/],
      ['metadata that is not XML', () => saml({ idpMetadataFile: undefined, idpMetadata: '<md:EntityDescriptor' }), /idpMetadata: /],
      ['a decryption key without its certificate', () => saml({ spDecryptionKey: key.seal(pem.key, CLIENT_SECRET_PURPOSE) }), /spDecryptionCertificate/],
    ])('refuses %s, naming it', async (_name, content, message) => {
      await expect(loadIdentityProviders(await file({ providers: [content()] }), key, {})).rejects.toThrow(message);
    });
  });
});
