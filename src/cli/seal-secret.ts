/**
 * `paraph seal-secret`: seals a client secret of an identity provider under the service's master key, for the
 * identity providers file (docs/verifications.md#configuration). The secret is read from stdin (never an argument, which
 * the process list and shell history would keep); the key is PARAPH_MASTER_KEY, else the data directory's `master.key`.
 */
import { parseArgs } from 'node:util';
import { CLIENT_SECRET_PURPOSE } from '../service/identity/identity-provider-config.js';
import { ADMIN_TOKEN_PURPOSE } from '../service/account-admin.js';
import type { CliCommand } from './common.js';
import { readMasterKeyForCli } from './master-key-for-cli.js';

/** Reads the secret from `readSecret` (default stdin) and prints it sealed. */
export function sealSecretCommandWith(readSecret: () => Promise<string>): CliCommand {
  return async (args, io) => {
    const { values } = parseArgs({ args, options: { 'data-dir': { type: 'string' }, for: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true });
    if (values.help) {
      io.stdout(
        'usage: printf %s "$SECRET" | paraph seal-secret [--data-dir <dir>] [--for client-secret|admin-token]\n\nKey: PARAPH_MASTER_KEY, else <data dir>/master.key. Prints the sealed value for "clientSecret" of an identity provider (default) or for PARAPH_ADMIN_TOKEN.\n',
      );
      return 0;
    }
    const purpose = values.for === undefined || values.for === 'client-secret' ? CLIENT_SECRET_PURPOSE : values.for === 'admin-token' ? ADMIN_TOKEN_PURPOSE : undefined;
    if (purpose === undefined) {
      io.stderr(`--for: client-secret or admin-token (got ${JSON.stringify(values.for)})\n`);
      return 2;
    }
    const key = await readMasterKeyForCli(values['data-dir']);
    const secret = (await readSecret()).replace(/\r?\n$/, '');
    if (secret === '') {
      io.stderr('no secret on stdin: printf %s "$SECRET" | paraph seal-secret\n');
      return 2;
    }
    io.stdout(`${key.seal(secret, purpose)}\n`);
    return 0;
  };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export const sealSecretCommand: CliCommand = sealSecretCommandWith(readStdin);
