/**
 * The signing page at SignUrl (`/sign/<token>`, docs/design/signer-api.md): server-rendered HTML in the
 * signer's language, built on the signer JSON API by one small module script; pdf.js (`pdfjs-dist`) and
 * `signature_pad` are served from node_modules and the script font from assets/fonts by the asset route (brotli or
 * gzip when the browser accepts it, compressed once), so the page makes no third-party request. Every response
 * carries a CSP without inline scripts, frame-ancestors 'none' plus X-Frame-Options DENY (clickjacking), no
 * referrer (the token is in the URL) and no caching. Also registers the ShowUrl and ReceiptUrl pages.
 */
import { contextOf } from './request-trace.js';
import { readFile } from 'node:fs/promises';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { ParaphError } from '../errors.js';
import { logoExtension, readAccountLogo } from '../service/branding/account-logo.js';
import type { ServiceContext } from '../service/context.js';
import { statusOf } from './error-map.js';
import { renderIdentityChoicePage } from './identity-choice-page.js';
import { beginChosenIdentity, identityChoices } from '../service/signer/choose-identity.js';
import { callbackSignerToken, completeIdentity, completeIdentityCallback } from '../service/signer/complete-identity.js';
import { findSignerByToken } from '../service/signer/signer-access.js';
import { renderSignPage, renderSignErrorPage } from './sign-page-html.js';
import { apiErrorText } from './sign-page-error-texts.js';
import { signPageTexts } from './sign-page-texts.js';
import { showPageRoutes } from './show-page.routes.js';

/** The Content-Security-Policy of the page and its assets. */
const SIGN_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** Asset name → [file, content type]. Only these are served. */
function assetTable(): Map<string, [string, string]> {
  const pdfjs = dirname(require.resolve('pdfjs-dist/package.json'));
  const pad = dirname(require.resolve('signature_pad'));
  // `npm run build` copies src/http/sign-page/ next to the compiled routes, so src/ (tsx) and dist/ look alike.
  const own = join(here, 'sign-page');
  const fonts = join(here, '..', '..', 'assets', 'fonts');
  return new Map([
    ['sign-page.js', [join(own, 'sign-page.js'), 'text/javascript; charset=utf-8']],
    ['show-page.js', [join(own, 'show-page.js'), 'text/javascript; charset=utf-8']],
    ['dancing-script-latin-400-normal.woff2', [join(fonts, 'dancing-script-latin-400-normal.woff2'), 'font/woff2']],
    ['dancing-script-latin-ext-400-normal.woff2', [join(fonts, 'dancing-script-latin-ext-400-normal.woff2'), 'font/woff2']],
    ['sign-page.css', [join(own, 'sign-page.css'), 'text/css; charset=utf-8']],
    ['pdf.min.mjs', [join(pdfjs, 'legacy/build/pdf.min.mjs'), 'text/javascript; charset=utf-8']],
    ['pdf.worker.min.mjs', [join(pdfjs, 'legacy/build/pdf.worker.min.mjs'), 'text/javascript; charset=utf-8']],
    ['signature_pad.umd.min.js', [join(pad, 'signature_pad.umd.min.js'), 'text/javascript; charset=utf-8']],
  ]);
}

/** The headers of every page and asset: CSP, no framing, no referrer, no sniffing. */
export function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', SIGN_PAGE_CSP)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('cross-origin-opener-policy', 'same-origin')
    .header('permissions-policy', 'camera=(), microphone=(), geolocation=()');
}

/** Registers `/sign/:token` and `/sign/assets/*`. */
export function signPageRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const assets = assetTable();
  const cache = new Map<string, Buffer>();
  const fontsDir = join(dirname(require.resolve('pdfjs-dist/package.json')), 'standard_fonts');
  /** The asset's bytes in the encoding the browser accepts best (woff2 is compressed already). */
  const encoded = async (file: string, type: string, accept: string): Promise<{ body: Buffer; encoding?: 'br' | 'gzip' }> => {
    const encoding = type.startsWith('font/') ? undefined : /\bbr\b/.test(accept) ? 'br' : /\bgzip\b/.test(accept) ? 'gzip' : undefined;
    const key = `${file}|${encoding ?? ''}`;
    let body = cache.get(key);
    if (body === undefined) {
      const raw = cache.get(`${file}|`) ?? (await readFile(file));
      cache.set(`${file}|`, raw);
      body = encoding === 'br' ? brotliCompressSync(raw, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9 } }) : encoding === 'gzip' ? gzipSync(raw, { level: 9 }) : raw;
      cache.set(key, body);
    }
    return { body, ...(encoding !== undefined ? { encoding } : {}) };
  };
  /** The signer's language for a page about `token`, else the browser's. */
  const signerLanguage = async (token: string, acceptLanguage: string | undefined): Promise<string | undefined> => {
    try {
      const { transaction, signer } = await findSignerByToken(ctx, token);
      return signer.Language ?? transaction.Language;
    } catch {
      return acceptLanguage;
    }
  };
  return async (app) => {
    await app.register(showPageRoutes(ctx));
    app.get<{ Params: { name: string } }>('/sign/assets/:name', async (request, reply) => {
      const entry = assets.get(request.params.name);
      if (entry === undefined) return securityHeaders(reply).code(404).type('text/plain').send('Not found');
      const accept = request.headers['accept-encoding'];
      const { body, encoding } = await encoded(entry[0], entry[1], typeof accept === 'string' ? accept : '');
      securityHeaders(reply).header('cache-control', 'public, max-age=3600').header('vary', 'accept-encoding').type(entry[1]);
      if (encoding !== undefined) reply.header('content-encoding', encoding);
      return reply.send(body);
    });
    app.get<{ Params: { name: string } }>('/sign/assets/standard_fonts/:name', async (request, reply) => {
      const name = request.params.name;
      if (!/^[A-Za-z0-9_-]+\.(pfb|ttf)$/.test(name)) return securityHeaders(reply).code(404).type('text/plain').send('Not found');
      try {
        const body = await readFile(join(fontsDir, name));
        return securityHeaders(reply).header('cache-control', 'public, max-age=86400').type('application/octet-stream').send(body);
      } catch {
        return securityHeaders(reply).code(404).type('text/plain').send('Not found');
      }
    });
    // The account's logo, by the SHA-256 of its bytes: the address changes with the image, so it is cached for good.
    // Served as the type paraph detected, never sniffed, and as a document it could run nothing (an image has no
    // business with scripts, styles or frames).
    app.get<{ Params: { accountId: string; file: string } }>('/sign/logo/:accountId/:file', async (request, reply) => {
      const match = /^([0-9a-f]{64})\.(png|jpg)$/.exec(request.params.file);
      const logo = match === null ? undefined : await readAccountLogo(ctx.store, request.params.accountId, match[1]);
      if (logo === undefined || logoExtension(logo.contentType) !== match?.[2]) return securityHeaders(reply).code(404).type('text/plain').send('Not found');
      return securityHeaders(reply)
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cross-origin-resource-policy', 'same-origin')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .type(logo.contentType)
        .send(Buffer.from(logo.bytes));
    });
    // The organisation's providers of a Type for the signer to pick from; the pick starts that provider's login.
    app.get<{ Querystring: Record<string, string> }>('/sign/identity/choose', async (request, reply) => {
      securityHeaders(reply).header('cache-control', 'no-store');
      const { state, provider } = request.query;
      try {
        if (provider !== undefined) return reply.redirect(await beginChosenIdentity(contextOf(ctx, request), state, provider), 303);
        const { token, choices } = await identityChoices(contextOf(ctx, request), state);
        const texts = signPageTexts(await signerLanguage(token, request.headers['accept-language']));
        const links = choices.map((name) => ({ name, href: `choose?${new URLSearchParams({ state: state ?? '', provider: name }).toString()}` }));
        return reply.type('text/html; charset=utf-8').send(renderIdentityChoicePage(texts, links, '../../'));
      } catch (error) {
        if (!(error instanceof ParaphError) || error.origin !== 'input') throw error;
        const token = await callbackSignerToken(contextOf(ctx, request), state).catch(() => undefined);
        const texts = signPageTexts(token === undefined ? request.headers['accept-language'] : await signerLanguage(token, request.headers['accept-language']));
        const status = statusOf(error);
        return reply.code(status).type('text/html; charset=utf-8').send(renderSignErrorPage(texts, texts.errorHeading, apiErrorText(texts, error.code, status), '../../', token === undefined ? undefined : `../${encodeURIComponent(token)}`));
      }
    });
    // The shared return address of OpenID Connect providers (their registered redirect URI): the state names the signer.
    app.get<{ Querystring: Record<string, string> }>('/sign/identity/return', async (request, reply) => {
      securityHeaders(reply).header('cache-control', 'no-store');
      const query = request.raw.url?.split('?')[1] ?? '';
      const url = `${ctx.settings.publicUrl}/sign/identity/return${query === '' ? '' : `?${query}`}`;
      try {
        const token = await completeIdentityCallback(contextOf(ctx, request), request.query, url);
        // Relative to /sign/identity/return, so that it works under any prefix.
        return reply.redirect(`../${encodeURIComponent(token)}`, 303);
      } catch (error) {
        if (!(error instanceof ParaphError) || error.origin !== 'input') throw error;
        const token = await callbackSignerToken(contextOf(ctx, request), request.query.state).catch(() => undefined);
        const texts = signPageTexts(token === undefined ? request.headers['accept-language'] : await signerLanguage(token, request.headers['accept-language']));
        const back = token === undefined ? undefined : `../${encodeURIComponent(token)}`;
        const status = statusOf(error);
        return reply.code(status).type('text/html; charset=utf-8').send(renderSignErrorPage(texts, texts.errorHeading, apiErrorText(texts, error.code, status), '../../', back));
      }
    });
    app.get<{ Params: { token: string }; Querystring: Record<string, string> }>('/sign/:token/identity', async (request, reply) => {
      securityHeaders(reply).header('cache-control', 'no-store');
      // Relative to /sign/<token>/identity, so that it works under any prefix.
      const back = `../${encodeURIComponent(request.params.token)}`;
      try {
        await completeIdentity(contextOf(ctx, request), request.params.token, request.query);
        return reply.redirect(back, 303);
      } catch (error) {
        if (!(error instanceof ParaphError) || error.origin !== 'input') throw error;
        const unknown = error.code === 'SIGN_TOKEN_UNKNOWN';
        const texts = signPageTexts(unknown ? request.headers['accept-language'] : await signerLanguage(request.params.token, request.headers['accept-language']));
        return reply.code(unknown ? 404 : 400).type('text/html; charset=utf-8').send(renderSignErrorPage(texts, texts.errorHeading, unknown ? texts.invalidLinkText : apiErrorText(texts, error.code, 400), '../../', back));
      }
    });
    app.get<{ Params: { token: string } }>('/sign/:token', async (request, reply) => {
      securityHeaders(reply).header('cache-control', 'no-store').type('text/html; charset=utf-8');
      try {
        const { transaction, signer } = await findSignerByToken(contextOf(ctx, request), request.params.token);
        const texts = signPageTexts(signer.Language ?? transaction.Language);
        return reply.send(renderSignPage(texts, request.params.token, '../'));
      } catch (error) {
        if (!(error instanceof ParaphError) || error.origin !== 'input') throw error;
        const texts = signPageTexts(request.headers['accept-language']);
        const unknown = error.code === 'SIGN_TOKEN_UNKNOWN';
        return reply.code(unknown ? 404 : 410).send(renderSignErrorPage(texts, unknown ? texts.errorHeading : texts.cleanedHeading, unknown ? texts.invalidLinkText : texts.cleanedText, '../'));
      }
    });
  };
}
