/**
 * Fetching Branding.LogoUrl under the postback guard: without the operator's allowance a loopback or private address
 * is refused before any connection (the local server counts its requests), by name too; with it, the body is read up
 * to the cap and redirects are checked again at each hop.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParaphError } from '../../../src/errors.js';
import { fetchLogo } from '../../../src/service/branding/fetch-logo.js';
import { smallPng } from './logo-fixtures.js';

const LOGO = smallPng(4, 4);
let server: Server;
let port = 0;
let requests = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    requests++;
    if (request.url === '/logo.png') return void response.writeHead(200).end(Buffer.from(LOGO));
    if (request.url === '/loop') return void response.writeHead(302, { location: '/loop' }).end();
    if (request.url === '/to-loopback-name') return void response.writeHead(302, { location: `http://localhost:${port}/logo.png` }).end();
    if (request.url === '/stall') {
      // Headers and a little of the body, then nothing: the deadline ends it.
      response.writeHead(200);
      response.write(Buffer.alloc(10));
      return;
    }
    if (request.url === '/stream') {
      // A body without a length that never ends: the cap stops it.
      response.writeHead(200);
      const timer = setInterval(() => response.write(Buffer.alloc(64 * 1024)), 1);
      response.on('close', () => clearInterval(timer));
      return;
    }
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

async function failure(url: string, options: Parameters<typeof fetchLogo>[1] = {}): Promise<string> {
  try {
    await fetchLogo(url, options);
  } catch (error) {
    if (error instanceof ParaphError && error.code === 'LOGO_FETCH_FAILED') return error.message;
    throw error;
  }
  throw new Error(`${url} was fetched`);
}

const LOCAL = { policy: { allowHttp: true, allowedRanges: ['127.0.0.1/32'] } };

describe('fetching a logo URL', () => {
  it('without an allowance: 127.0.0.1, localhost and http are refused and no request is made', async () => {
    const before = requests;
    expect(await failure(`http://127.0.0.1:${port}/logo.png`)).toMatch(/https/);
    expect(await failure(`https://127.0.0.1:${port}/logo.png`)).toMatch(/not a public address/);
    expect(await failure(`http://127.0.0.1:${port}/logo.png`, { policy: { allowHttp: true, allowedRanges: [] } })).toMatch(/not a public address/);
    expect(await failure(`http://localhost:${port}/logo.png`, { policy: { allowHttp: true, allowedRanges: [] } })).toMatch(/not a public address/);
    expect(await failure('https://[::ffff:127.0.0.1]/logo.png')).toMatch(/not a public address/);
    expect(requests).toBe(before);
  });

  it('with the allowance: the bytes; a redirect to a name resolving to a refused address, a redirect loop and an endless body fail', async () => {
    expect(Buffer.from(await fetchLogo(`http://127.0.0.1:${port}/logo.png`, LOCAL)).equals(Buffer.from(LOGO))).toBe(true);
    // localhost resolves to ::1 as well on most machines, outside the allowed 127.0.0.1/32; a fixed resolver makes it certain.
    const resolve = async () => [{ address: '10.0.0.1', family: 4 }];
    expect(await failure(`http://127.0.0.1:${port}/to-loopback-name`, { ...LOCAL, resolve })).toMatch(/redirects to an address that is refused/);
    expect(await failure(`http://127.0.0.1:${port}/loop`, LOCAL)).toMatch(/more than 3 redirects/);
    expect(await failure(`http://127.0.0.1:${port}/stream`, LOCAL)).toMatch(/larger than 262144 bytes/);
    expect(await failure(`http://127.0.0.1:${port}/error`, LOCAL)).toMatch(/HTTP 500/);
    expect(await failure(`http://127.0.0.1:${port}/stall`, { ...LOCAL, timeoutMs: 300 })).toMatch(/no complete answer in time/);
  });
});
