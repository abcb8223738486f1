/**
 * An account's logo through the admin API over real HTTP: uploaded (PUT, judged by its content), served by the
 * service with a fixed type, nosniff, a CSP that runs nothing and an immutable cache; hostile uploads refused with
 * the account unchanged; removed (DELETE); set from Branding.LogoUrl, fetched once under the postback guard from a
 * server this test runs on 127.0.0.1 (allowed here by PARAPH_POSTBACK_ALLOWED_RANGES, as a development set-up would),
 * with a fetch that fails, or redirects to a private address, answered 400 and nothing stored.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import jpeg from 'jpeg-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGO_LIMITS } from '../../src/service/branding/logo-header.js';
import { call, startTestService, type ApiResponse, type TestService } from '../helpers/service-harness.js';
import { noisyRgbPng, smallJpeg, smallPng } from '../service/branding/logo-fixtures.js';

const ADMIN_TOKEN = 'admin-token-0123456789-0123456789-abcdef';
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
const PNG_LOGO = smallPng(60, 20);
let service: TestService;
let logoServer: Server;
let logoBase: string;
let fetches = 0;

beforeAll(async () => {
  logoServer = createServer((request, response) => {
    fetches++;
    if (request.url === '/logo.png') return void response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from(PNG_LOGO));
    if (request.url === '/logo.jpg') return void response.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.from(smallJpeg()));
    if (request.url === '/hop') return void response.writeHead(302, { location: '/logo.png' }).end();
    if (request.url === '/to-metadata') return void response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    if (request.url === '/to-private') return void response.writeHead(301, { location: 'http://10.0.0.7/logo.png' }).end();
    if (request.url === '/svg') return void response.writeHead(200, { 'content-type': 'image/png' }).end('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    if (request.url === '/huge') return void response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(LOGO_LIMITS.maxBytes + 10));
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => logoServer.listen(0, '127.0.0.1', resolve));
  logoBase = `http://127.0.0.1:${(logoServer.address() as AddressInfo).port}`;
  service = await startTestService({ env: { PARAPH_ADMIN_TOKEN: ADMIN_TOKEN, PARAPH_POSTBACK_ALLOW_HTTP: 'true', PARAPH_POSTBACK_ALLOWED_RANGES: '127.0.0.1/32' } });
}, 60_000);
afterAll(async () => {
  await service?.dispose();
  await new Promise((resolve) => logoServer?.close(resolve));
});

function admin(method: string, path: string, options: { json?: unknown; body?: Uint8Array | string; type?: string } = {}): Promise<ApiResponse> {
  return call(service.url, method, `/api/admin${path}`, {
    auth: false,
    headers: { ...ADMIN, ...(options.type !== undefined ? { 'content-type': options.type } : {}) },
    ...(options.json !== undefined ? { json: options.json } : {}),
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
}

async function newAccount(): Promise<string> {
  const created = await admin('POST', '/accounts', { json: { Name: 'Voorbeeld Verhuur B.V.', Branding: { DisplayName: 'Voorbeeld' } } });
  expect(created.status, created.text).toBe(201);
  return created.json.Id as string;
}

describe('account logo (admin API)', () => {
  it('an uploaded PNG is stored re-encoded, served by the service with fixed headers, and removed again', async () => {
    const id = await newAccount();
    const set = await admin('PUT', `/accounts/${id}/logo`, { body: PNG_LOGO, type: 'image/png' });
    expect(set.status, set.text).toBe(200);
    const logo = set.json.Logo as Record<string, unknown>;
    expect(logo).toMatchObject({ ContentType: 'image/png', Width: 60, Height: 20, Source: 'Upload' });
    expect(logo.Url).toBe(`/sign/logo/${id}/${logo.Sha256 as string}.png`);

    const served = await fetch(`${service.url}${logo.Url as string}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const bytes = new Uint8Array(await served.arrayBuffer());
    expect(Buffer.from(await crypto.subtle.digest('SHA-256', bytes)).toString('hex')).toBe(logo.Sha256);
    // Another extension, another account or a made-up hash finds nothing.
    expect((await fetch(`${service.url}${(logo.Url as string).replace(/\.png$/, '.jpg')}`)).status).toBe(404);
    expect((await fetch(`${service.url}/sign/logo/other/${logo.Sha256 as string}.png`)).status).toBe(404);
    expect((await fetch(`${service.url}/sign/logo/${id}/${'0'.repeat(64)}.png`)).status).toBe(404);

    const removed = await admin('DELETE', `/accounts/${id}/logo`);
    expect(removed.status).toBe(200);
    expect(removed.json.Logo).toBeUndefined();
    expect((await fetch(`${service.url}${logo.Url as string}`)).status).toBe(404);
    const audit = await admin('GET', `/audit?accountId=${id}`);
    expect(audit.json.map((e: { Action: string }) => e.Action)).toEqual(expect.arrayContaining(['account.logo-set', 'account.logo-removed']));
  });

  it('a JPEG is decoded in a PDF process and served re-encoded: a JPEG of its size, without the EXIF or bytes appended to it', async () => {
    const id = await newAccount();
    const image = Buffer.from(smallJpeg());
    const exif = Buffer.from('Exif\0\0camera-serial-12345', 'latin1');
    const uploaded = Buffer.concat([image.subarray(0, 2), Buffer.from([0xff, 0xe1, 0, exif.length + 2]), exif, image.subarray(2), Buffer.from('<html>appended</html>')]);
    const set = await admin('PUT', `/accounts/${id}/logo`, { body: new Uint8Array(uploaded), type: 'image/jpeg' });
    expect(set.status, set.text).toBe(200);
    expect(set.json.Logo).toMatchObject({ ContentType: 'image/jpeg', Width: 16, Height: 8 });
    const served = await fetch(`${service.url}${(set.json.Logo as { Url: string }).Url}`);
    expect(served.headers.get('content-type')).toBe('image/jpeg');
    const body = Buffer.from(await served.arrayBuffer());
    expect(body.equals(uploaded)).toBe(false);
    for (const needle of ['Exif', 'camera-serial', '<html>']) expect(body.includes(Buffer.from(needle, 'latin1'))).toBe(false);
    expect(jpeg.decode(body, { useTArray: true })).toMatchObject({ width: 16, height: 8 });
  });

  it('a phone JPEG whose EXIF says to turn it a quarter right is stored and served turned, with the displayed size', async () => {
    const id = await newAccount();
    const image = Buffer.from(smallJpeg());
    // "Exif\0\0", a big-endian TIFF header, IFD0 with one entry: Orientation (0x0112), one SHORT, 6.
    const exif = Buffer.from('457869660000' + '4d4d002a00000008' + '0001' + '011200030000000100060000' + '00000000', 'hex');
    const uploaded = Buffer.concat([image.subarray(0, 2), Buffer.from([0xff, 0xe1, 0, exif.length + 2]), exif, image.subarray(2)]);
    const set = await admin('PUT', `/accounts/${id}/logo`, { body: new Uint8Array(uploaded), type: 'image/jpeg' });
    expect(set.status, set.text).toBe(200);
    expect(set.json.Logo).toMatchObject({ ContentType: 'image/jpeg', Width: 8, Height: 16 });
    const served = Buffer.from(await (await fetch(`${service.url}${(set.json.Logo as { Url: string }).Url}`)).arrayBuffer());
    expect(jpeg.decode(served, { useTArray: true })).toMatchObject({ width: 8, height: 16 });
  });

  it('refuses SVG, HTML disguised as a PNG, a bomb header, a truncated file and more than 256 KiB (as sent or as re-encoded); the account keeps its logo', async () => {
    const id = await newAccount();
    const first = await admin('PUT', `/accounts/${id}/logo`, { body: PNG_LOGO, type: 'image/png' });
    const bomb = Buffer.from(smallPng(2, 2));
    bomb.writeUInt32BE(100_000, 16);
    bomb.writeUInt32BE(100_000, 20);
    const refusals: [Uint8Array | string, string, number, string][] = [
      ['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'image/svg+xml', 400, 'LOGO_INVALID'],
      ['<!doctype html><script>alert(1)</script>', 'image/png', 400, 'LOGO_INVALID'],
      [new Uint8Array(bomb), 'image/png', 400, 'LOGO_INVALID'],
      [PNG_LOGO.subarray(0, PNG_LOGO.length - 20), 'image/png', 400, 'LOGO_INVALID'],
      [new Uint8Array(LOGO_LIMITS.maxBytes + 1), 'image/png', 413, 'LOGO_TOO_LARGE'],
      // Under 256 KiB as sent, larger once written as RGBA: refused by the PDF process that re-encodes it.
      [noisyRgbPng(290, 290), 'image/png', 413, 'LOGO_TOO_LARGE'],
    ];
    for (const [body, type, status, code] of refusals) {
      const refused = await admin('PUT', `/accounts/${id}/logo`, { body, type });
      expect(refused.status, refused.text).toBe(status);
      expect(refused.headers.get('paraph-error-code')).toBe(code);
    }
    const asJson = await admin('PUT', `/accounts/${id}/logo`, { json: { Logo: 'iVBORw0KGgo=' } });
    expect(asJson.headers.get('paraph-error-code')).toBe('LOGO_INVALID');
    expect((await admin('GET', `/accounts/${id}`)).json.Logo).toEqual(first.json.Logo);
    expect((await admin('PUT', '/accounts/no-such-account/logo', { body: PNG_LOGO, type: 'image/png' })).status).toBe(404);
    // Only the admin token sets or removes a logo.
    const anonymous = await call(service.url, 'PUT', `/api/admin/accounts/${id}/logo`, { auth: false, headers: { 'content-type': 'image/png' }, body: PNG_LOGO });
    expect(anonymous.status).toBe(401);
    expect((await call(service.url, 'DELETE', `/api/admin/accounts/${id}/logo`, { auth: false })).status).toBe(401);
  });

  it('Branding.LogoUrl is fetched once (redirects followed) and the bytes served by the service; dropping the URL drops the logo', async () => {
    const id = await newAccount();
    const before = fetches;
    const set = await admin('PATCH', `/accounts/${id}`, { json: { Branding: { DisplayName: 'Voorbeeld', LogoUrl: `${logoBase}/hop` } } });
    expect(set.status, set.text).toBe(200);
    expect(set.json.Logo).toMatchObject({ ContentType: 'image/png', Width: 60, Height: 20, Source: 'Url' });
    expect(fetches - before).toBe(2);
    // The same URL again is not fetched again; other settings leave the logo alone.
    await admin('PATCH', `/accounts/${id}`, { json: { Branding: { DisplayName: 'Voorbeeld 2', LogoUrl: `${logoBase}/hop` } } });
    await admin('PATCH', `/accounts/${id}`, { json: { Name: 'Voorbeeld B.V.' } });
    expect(fetches - before).toBe(2);
    expect((await admin('GET', `/accounts/${id}`)).json.Logo).toEqual(set.json.Logo);
    const dropped = await admin('PATCH', `/accounts/${id}`, { json: { Branding: { DisplayName: 'Voorbeeld' } } });
    expect(dropped.json.Logo).toBeUndefined();

    const created = await admin('POST', '/accounts', { json: { Name: 'Met logo', Branding: { LogoUrl: `${logoBase}/logo.jpg` } } });
    expect(created.status, created.text).toBe(201);
    expect(created.json.Logo).toMatchObject({ ContentType: 'image/jpeg', Source: 'Url' });
  });

  it('a LogoUrl that fails, redirects to a private address, sends too much or no image answers 400 and changes nothing', async () => {
    const id = await newAccount();
    const cases: [string, string][] = [
      [`${logoBase}/missing.png`, 'LOGO_FETCH_FAILED'],
      [`${logoBase}/to-metadata`, 'LOGO_FETCH_FAILED'],
      [`${logoBase}/to-private`, 'LOGO_FETCH_FAILED'],
      [`${logoBase}/huge`, 'LOGO_FETCH_FAILED'],
      ['http://10.1.2.3/logo.png', 'LOGO_FETCH_FAILED'],
      [`${logoBase}/svg`, 'LOGO_INVALID'],
    ];
    for (const [url, code] of cases) {
      const refused = await admin('PATCH', `/accounts/${id}`, { json: { Branding: { DisplayName: 'Anders', LogoUrl: url } } });
      expect(refused.status, `${url}: ${refused.text}`).toBe(400);
      expect(refused.headers.get('paraph-error-code')).toBe(code);
      expect(refused.json.Message).not.toMatch(/ECONNREFUSED|169\.254\.169\.254|10\.0\.0\.7/);
    }
    const unchanged = (await admin('GET', `/accounts/${id}`)).json;
    expect(unchanged.Branding).toEqual({ DisplayName: 'Voorbeeld' });
    expect(unchanged.Logo).toBeUndefined();
    expect((await admin('POST', '/accounts', { json: { Name: 'x', Branding: { LogoUrl: `${logoBase}/missing.png` } } })).status).toBe(400);
  });
});
