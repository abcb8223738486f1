/**
 * `paraph account logo …` on a data directory: a PNG set from a file is checked (in a PDF process) and stored with
 * its SHA-256, an SVG or a file over 256 KiB is refused with its reason and nothing stored, and the logo is removed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCommandWith } from '../../src/cli/account.js';
import { runCommand } from '../../src/cli/common.js';
import { openServiceStore } from '../../src/store/open-store.js';
import { readAccountLogo } from '../../src/service/branding/account-logo.js';
import { smallPng } from '../service/branding/logo-fixtures.js';

let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'paraph-account-logo-cli-'));
  await (await openServiceStore({ dataDir })).store.close();
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCommand(accountCommandWith(async () => ''), [...args, '--data-dir', dataDir, '--json'], { stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

describe('paraph account logo', () => {
  it('sets a checked PNG, refuses an SVG and an oversize file, removes it', async () => {
    const id = JSON.parse((await cli('create', '--name', 'Acme BV')).out).Id as string;
    const png = join(dataDir, 'logo.png');
    writeFileSync(png, smallPng(90, 30));
    const set = await cli('logo', 'set', id, png);
    expect(set.code, set.err).toBe(0);
    const logo = JSON.parse(set.out).Logo as { Sha256: string; Width: number; Height: number; Source: string };
    expect(logo).toMatchObject({ ContentType: 'image/png', Width: 90, Height: 30, Source: 'Upload' });

    const svg = join(dataDir, 'logo.svg');
    writeFileSync(svg, '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const refused = await cli('logo', 'set', id, svg);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toMatch(/not a PNG or JPEG/);
    const big = join(dataDir, 'big.png');
    writeFileSync(big, Buffer.alloc(1024 * 1024));
    const tooLarge = await cli('logo', 'set', id, big);
    expect(tooLarge.code).not.toBe(0);
    expect(tooLarge.err).toMatch(/256 KiB/);

    const opened = await openServiceStore({ dataDir });
    try {
      expect((await opened.store.getAccount(id))?.Logo?.Sha256).toBe(logo.Sha256);
      expect((await readAccountLogo(opened.store, id, logo.Sha256))?.contentType).toBe('image/png');
    } finally {
      await opened.store.close();
    }

    const removed = await cli('logo', 'remove', id);
    expect(removed.code, removed.err).toBe(0);
    expect(JSON.parse(removed.out).Logo).toBeUndefined();
  });
});
