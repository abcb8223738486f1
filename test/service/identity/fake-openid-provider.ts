/**
 * A minimal OpenID provider for the relying-party tests, on 127.0.0.1: discovery, a key set, an authorization endpoint
 * that logs the user in at once, a token endpoint that checks the code, the client and the PKCE verifier, and userinfo.
 * Its ID tokens are signed with `jose`, and each test can spoil the next one (audience, expiry, nonce, signature, key)
 * to see the relying party refuse it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

/** How the next ID token is spoiled (each applies once, to the next token). */
export interface Spoil {
  audience?: string;
  /** Seconds from now (negative: already expired). */
  expiresIn?: number;
  nonce?: string;
  /** Flip a character of the signature. */
  tamper?: boolean;
  /** Sign with a key that is not in the key set. */
  foreignKey?: boolean;
  /** The user cancels at the provider: the authorization answers access_denied. */
  deny?: boolean;
}

export interface FakeOp {
  readonly issuer: string;
  /** Claims of the user who logs in. */
  claims: Record<string, unknown>;
  /** Spoils the next ID token. */
  spoilNext(spoil: Spoil): void;
  /** Publishes a new signing key (new kid) and signs with it from now on; the old one leaves the key set. */
  rotateKey(): Promise<void>;
  /** The kid tokens are signed with now. */
  readonly kid: string;
  /** How often the key set was fetched. */
  readonly jwksFetches: number;
  close(): Promise<void>;
}

interface SigningKey {
  kid: string;
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  publicJwk: JWK;
}

async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomBytes(6).toString('hex');
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the provider for client `clientId` with secret `clientSecret`. */
export async function startFakeOp(clientId: string, clientSecret: string): Promise<FakeOp> {
  let key = await newKey();
  let spoil: Spoil = {};
  let jwksFetches = 0;
  const codes = new Map<string, { nonce: string; challenge: string; redirectUri: string }>();
  let issuer = '';
  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', issuer);
      const json = (status: number, value: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (url.pathname === '/.well-known/openid-configuration') {
        return json(200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          userinfo_endpoint: `${issuer}/userinfo`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['client_secret_basic'],
        });
      }
      if (url.pathname === '/jwks') {
        jwksFetches += 1;
        return json(200, { keys: [key.publicJwk] });
      }
      if (url.pathname === '/authorize') {
        const p = url.searchParams;
        if (p.get('client_id') !== clientId || p.get('code_challenge_method') !== 'S256' || !p.get('nonce') || !p.get('state')) return json(400, { error: 'invalid_request' });
        const code = randomBytes(16).toString('base64url');
        codes.set(code, { nonce: p.get('nonce') ?? '', challenge: p.get('code_challenge') ?? '', redirectUri: p.get('redirect_uri') ?? '' });
        const back = new URL(p.get('redirect_uri') ?? '');
        if (spoil.deny === true) {
          spoil = {};
          back.searchParams.set('error', 'access_denied');
          back.searchParams.set('error_description', 'the user cancelled');
          back.searchParams.set('state', p.get('state') ?? '');
          return response.writeHead(302, { location: back.href }).end();
        }
        back.searchParams.set('code', code);
        back.searchParams.set('state', p.get('state') ?? '');
        back.searchParams.set('iss', issuer);
        return response.writeHead(302, { location: back.href }).end();
      }
      if (url.pathname === '/token' && request.method === 'POST') {
        const form = new URLSearchParams(await body(request));
        const [id, secret] = Buffer.from((request.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8').split(':')
          .map((part) => decodeURIComponent(part.replace(/\+/g, ' ')));
        if (id !== clientId || secret !== clientSecret) return json(401, { error: 'invalid_client', error_description: 'client authentication failed' });
        const grant = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        if (grant === undefined || grant.redirectUri !== form.get('redirect_uri') || createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) {
          return json(400, { error: 'invalid_grant', error_description: `code, redirect_uri or code_verifier wrong (${form.get('redirect_uri')} ${grant?.redirectUri})` });
        }
        const now = Math.floor(Date.now() / 1000);
        const s = spoil;
        spoil = {};
        const signingKey = s.foreignKey === true ? await newKey() : key;
        let idToken = await new SignJWT({ ...op.claims, nonce: s.nonce ?? grant.nonce })
          .setProtectedHeader({ alg: 'RS256', kid: s.foreignKey === true ? key.kid : signingKey.kid })
          .setIssuer(issuer)
          .setAudience(s.audience ?? clientId)
          .setSubject(String(op.claims.sub))
          .setIssuedAt(now)
          .setExpirationTime(now + (s.expiresIn ?? 300))
          .sign(signingKey.privateKey);
        if (s.tamper === true) {
          const [h, p, sig] = idToken.split('.') as [string, string, string];
          const payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
          idToken = [h, Buffer.from(JSON.stringify({ ...payload, bsn: '123456782' })).toString('base64url'), sig].join('.');
        }
        return json(200, { access_token: 'at-' + randomBytes(8).toString('hex'), token_type: 'Bearer', expires_in: 300, id_token: idToken });
      }
      if (url.pathname === '/userinfo') return json(200, { sub: op.claims.sub, email: 'jan@example.com' });
      return json(404, { error: 'not_found' });
    })().catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const op: FakeOp = {
    issuer,
    claims: {},
    spoilNext: (next) => {
      spoil = next;
    },
    rotateKey: async () => {
      key = await newKey();
    },
    get kid() {
      return key.kid;
    },
    get jwksFetches() {
      return jwksFetches;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return op;
}

/** A server that accepts connections and never answers (an identity provider that hangs). */
export async function startSilentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(() => {
    // never answers
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
