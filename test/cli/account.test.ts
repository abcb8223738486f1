/**
 * `paraph account …` on a data directory: accounts and keys made, rotated, revoked and disabled from the command line
 * are what the service's authentication then sees; secrets are printed once and never audited.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCommand } from '../../src/cli/account.js';
import { runCommand } from '../../src/cli/common.js';
import { authenticateAccount, loadCredentialKey } from '../../src/service/keys/credentials.js';
import { openServiceStore } from '../../src/store/open-store.js';
import { postbackSecretsAt } from '../../src/domain/account.js';

let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'paraph-account-cli-'));
  // A data directory as the service leaves it: database and master key.
  await (await openServiceStore({ dataDir })).store.close();
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
  let out = '';
  let err = '';
  const code = await runCommand(accountCommand, [...args, '--data-dir', dataDir, '--json'], { stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err, json: out === '' ? undefined : JSON.parse(out) };
}

/** The account Id the service would authenticate these credentials as, now. */
async function authenticatedAs(userToken: string, appKey: string): Promise<string | undefined> {
  const opened = await openServiceStore({ dataDir });
  try {
    const deps = { store: opened.store, clock: () => new Date(), credentialKey: await loadCredentialKey(opened.store, opened.masterKey) };
    return (await authenticateAccount(deps, userToken, appKey))?.Id;
  } finally {
    await opened.store.close();
  }
}

describe('paraph account', () => {
  it('sets a postback secret: the old one keeps signing for the overlap (flag, or the setting), none with 0', async () => {
    const created = await cli('create', '--name', 'Rotating BV');
    const id = created.json.Id as string;
    const rotated = await cli('postback-secret', id, '--secret', 'new-secret-0123456789abcdef', '--overlap-seconds', '600');
    expect(rotated.code, rotated.err).toBe(0);
    expect(rotated.json.PostbackSecret).toBe('new-secret-0123456789abcdef');
    const until = Date.parse(rotated.json.PreviousPostbackSecretValidUntil as string);
    expect(until - Date.now()).toBeGreaterThan(500_000);
    const opened = await openServiceStore({ dataDir });
    const account = (await opened.store.getAccount(id))!;
    await opened.store.close();
    expect(postbackSecretsAt(account, new Date())).toEqual({ secret: 'new-secret-0123456789abcdef', previous: created.json.PostbackSecret });
    expect(postbackSecretsAt(account, new Date(until))).toEqual({ secret: 'new-secret-0123456789abcdef' });
    const dropped = await cli('postback-secret', id, '--overlap-seconds', '0');
    expect(dropped.json.PreviousPostbackSecretValidUntil).toBeUndefined();
    expect((await cli('postback-secret', id, '--overlap-seconds', 'soon')).code).toBe(2);
  });

  it('creates an account, issues, rotates and revokes its keys, disables it; all audited as cli, no secret in the audit', async () => {
    const created = await cli('create', '--name', 'Acme BV', '--notification-email', 'ops@acme.example');
    expect(created.code, created.err).toBe(0);
    const id = created.json.Id as string;
    expect(typeof created.json.PostbackSecret).toBe('string');
    const user = await cli('key', 'issue', id, '--kind', 'user-token', '--label', 'Alice');
    const app = await cli('key', 'issue', id, '--kind', 'app-key');
    expect([user.code, app.code]).toEqual([0, 0]);
    expect(await authenticatedAs(user.json.Secret, app.json.Secret)).toBe(id);

    const rotated = await cli('key', 'rotate', id, app.json.Id, '--overlap-seconds', '0');
    expect(rotated.code, rotated.err).toBe(0);
    expect(await authenticatedAs(user.json.Secret, app.json.Secret)).toBeUndefined();
    expect(await authenticatedAs(user.json.Secret, rotated.json.Secret)).toBe(id);
    expect((await cli('key', 'list', id)).json.map((c: { Status: string }) => c.Status)).toEqual(['active', 'expired', 'active']);

    expect((await cli('disable', id)).json.Disabled).toBe(true);
    expect(await authenticatedAs(user.json.Secret, rotated.json.Secret)).toBeUndefined();
    expect((await cli('enable', id)).code).toBe(0);
    expect((await cli('key', 'revoke', id, user.json.Id)).json.Status).toBe('revoked');
    expect(await authenticatedAs(user.json.Secret, rotated.json.Secret)).toBeUndefined();
    expect((await cli('list')).json.map((a: { Id: string }) => a.Id)).toContain(id);
    expect((await cli('show', id)).json.Name).toBe('Acme BV');

    const opened = await openServiceStore({ dataDir });
    const audit = await opened.store.listAdminAudit({ limit: 100, accountId: id });
    await opened.store.close();
    expect(audit.map((e) => [e.actor, e.action])).toEqual([
      ['cli', 'account.created'],
      ['cli', 'credential.issued'],
      ['cli', 'credential.issued'],
      ['cli', 'credential.rotated'],
      ['cli', 'account.disabled'],
      ['cli', 'account.enabled'],
      ['cli', 'credential.revoked'],
    ]);
    const text = JSON.stringify(audit);
    for (const secret of [user.json.Secret, app.json.Secret, rotated.json.Secret, created.json.PostbackSecret]) expect(text).not.toContain(secret);
  });

  it('says what is wrong: unknown account, missing arguments, no data directory', async () => {
    const unknown = await cli('show', 'nope');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('NO_SUCH_ACCOUNT');
    expect((await cli('key', 'issue', 'nope', '--kind', 'other')).code).toBe(2);
    expect((await cli('create')).err).toContain('--name');
    let err = '';
    const code = await runCommand(accountCommand, ['list', '--data-dir', join(dataDir, 'missing')], { stdout: () => undefined, stderr: (t) => (err += t) });
    expect(code).toBe(2);
    expect(err).toContain('no service data');
  });
});
