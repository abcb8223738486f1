/**
 * `paraph account …` (docs/design/accounts.md#cli): the admin API's operations on the service's store, for an operator
 * on the machine: the data directory (SQLite, `--data-dir` or PARAPH_DATA_DIR) or PARAPH_DATABASE_URL, opened with the
 * master key (PARAPH_MASTER_KEY, else the data directory's key file). Works while the service runs: a key revoked
 * here is refused by the service at its next request. Changes are audited with the actor `cli`. A new secret is
 * printed once.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Account, AccountCredential } from '../domain/account.js';
import {
  createAccount,
  issueCredential,
  listAccountCredentials,
  listAccounts,
  removeAccountLogo,
  revokeCredential,
  rotateCredential,
  setAccountDisabled,
  setAccountLogo,
  setAccountPostbackSecret,
  showAccount,
} from '../service/account-admin.js';
import { qualifiedSealSummary, removeAccountQualifiedSeal, setAccountQualifiedSeal, type SealAdminDeps } from '../service/account-seal-admin.js';
import { LOGO_LIMITS } from '../service/branding/logo-header.js';
import { loadCredentialKey } from '../service/keys/credentials.js';
import { openServiceStore } from '../store/open-store.js';
import { UsageError, type CliCommand, type CliIo } from './common.js';

const USAGE = `usage:
  paraph account create --name <organisation> [--notification-email <address>]
  paraph account list
  paraph account show <accountId>
  paraph account disable <accountId>
  paraph account enable <accountId>
  paraph account postback-secret <accountId> [--secret <text>] [--overlap-seconds <n>]
      (default: generated; the old one also signs for PARAPH_POSTBACK_SECRET_OVERLAP_SECONDS, default 86400)
  paraph account key issue <accountId> --kind app-key|user-token [--label <text>]
  paraph account key list <accountId>
  paraph account key rotate <accountId> <credentialId> [--overlap-seconds <n>]   (default 86400)
  paraph account key revoke <accountId> <credentialId>
  paraph account seal set <accountId> --pkcs12 <file.p12>                 (password on stdin)
  paraph account seal set <accountId> --pkcs11-module <path> [--token-label <label> | --slot <n>] [--key-label <label>]   (PIN on stdin)
  paraph account seal remove <accountId>
  paraph account logo set <accountId> <file.png|file.jpg>   (PNG or JPEG, at most 256 KiB, 2048 px a side)
  paraph account logo remove <accountId>
options: --data-dir <dir> (default PARAPH_DATA_DIR or ./data), --json (machine-readable output)
`;

const OPTIONS = {
  'data-dir': { type: 'string' },
  name: { type: 'string' },
  'notification-email': { type: 'string' },
  kind: { type: 'string' },
  label: { type: 'string' },
  secret: { type: 'string' },
  'overlap-seconds': { type: 'string' },
  pkcs12: { type: 'string' },
  'pkcs11-module': { type: 'string' },
  'token-label': { type: 'string' },
  slot: { type: 'string' },
  'key-label': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `paraph account`, reading a seal's password or PIN with `readSecret` (default stdin: never an argument). */
export function accountCommandWith(readSecret: () => Promise<string>): CliCommand {
  return async (args, io) => {
    const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
    if (values.help || positionals.length === 0) {
      io.stdout(USAGE);
      return values.help ? 0 : 2;
    }
    const dataDir = resolve(values['data-dir'] ?? process.env.PARAPH_DATA_DIR ?? './data');
    const databaseUrl = process.env.PARAPH_DATABASE_URL?.trim() || undefined;
    if (databaseUrl === undefined && !existsSync(join(dataDir, 'paraph.db'))) {
      io.stderr(`no service data in ${dataDir}: name the data directory with --data-dir (or PARAPH_DATA_DIR), or start the service once\n`);
      return 2;
    }
    const configuredKey = process.env.PARAPH_MASTER_KEY?.trim() || undefined;
    const opened = await openServiceStore({ dataDir, ...(configuredKey !== undefined ? { configuredKey } : {}), ...(databaseUrl !== undefined ? { databaseUrl } : {}) });
    try {
      const deps: SealAdminDeps = { store: opened.store, clock: () => new Date(), credentialKey: await loadCredentialKey(opened.store, opened.masterKey), secrets: opened.masterKey };
      return await run(deps, positionals, values, io, readSecret);
    } finally {
      await opened.store.close();
    }
  };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

export const accountCommand: CliCommand = accountCommandWith(readStdin);

type Values = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'string' ? string : boolean };

async function run(deps: SealAdminDeps, positionals: string[], values: Values, io: CliIo, readSecret: () => Promise<string>): Promise<number> {
  const [verb, ...rest] = positionals;
  const out = (json: unknown, text: string): number => {
    io.stdout(values.json ? `${JSON.stringify(json)}\n` : text);
    return 0;
  };
  const arg = (i: number, name: string): string => {
    const value = rest[i];
    if (value === undefined) throw new UsageError(`paraph account ${verb}: missing <${name}>\n${USAGE}`);
    return value;
  };
  switch (verb) {
    case 'create': {
      if (values.name === undefined) throw new UsageError(`paraph account create: --name <organisation> is required`);
      const email = values['notification-email'];
      const { account, postbackSecret } = await createAccount(deps, 'cli', { Name: values.name, ...(email !== undefined ? { NotificationEmail: email } : {}) });
      return out({ ...accountJson(account), PostbackSecret: postbackSecret }, `${accountLine(account)}\npostback secret (shown once): ${postbackSecret}\n`);
    }
    case 'list': {
      const accounts = await listAccounts(deps);
      return out(accounts.map(accountJson), accounts.map((a) => `${accountLine(a)}\n`).join(''));
    }
    case 'show': {
      const account = await showAccount(deps, arg(0, 'accountId'));
      return out(accountJson(account), `${JSON.stringify(accountJson(account), null, 2)}\n`);
    }
    case 'disable':
    case 'enable': {
      const account = await setAccountDisabled(deps, 'cli', arg(0, 'accountId'), verb === 'disable');
      return out(accountJson(account), `${accountLine(account)}\n`);
    }
    case 'postback-secret': {
      const accountId = arg(0, 'accountId');
      const overlap = values['overlap-seconds'] ?? (process.env.PARAPH_POSTBACK_SECRET_OVERLAP_SECONDS?.trim() || undefined);
      if (overlap !== undefined && !/^[0-9]{1,8}$/.test(overlap)) {
        throw new UsageError('paraph account postback-secret: --overlap-seconds (or PARAPH_POSTBACK_SECRET_OVERLAP_SECONDS) takes a whole number of seconds');
      }
      const secret = await setAccountPostbackSecret(deps, 'cli', accountId, values.secret, overlap === undefined ? undefined : Number(overlap));
      const account = await showAccount(deps, accountId);
      const until = account.PreviousPostbackSecretValidUntil;
      return out(
        { ...accountJson(account), PostbackSecret: secret },
        `${accountLine(account)}\npostback secret (shown once): ${secret}\n${until !== undefined ? `the previous secret also signs postbacks until ${until}\n` : ''}`,
      );
    }
    case 'key':
      return runKey(deps, rest, values, out);
    case 'seal':
      return runSeal(deps, rest, values, out, readSecret);
    case 'logo':
      return runLogo(deps, rest, out);
    default:
      throw new UsageError(`paraph account: unknown command ${JSON.stringify(verb)}\n${USAGE}`);
  }
}

async function runKey(deps: SealAdminDeps, positionals: string[], values: Values, out: (json: unknown, text: string) => number): Promise<number> {
  const [verb, accountId, credentialId] = positionals;
  if (accountId === undefined) throw new UsageError(`paraph account key ${verb ?? ''}: missing <accountId>\n${USAGE}`);
  const needCredential = (): string => {
    if (credentialId === undefined) throw new UsageError(`paraph account key ${verb ?? ''}: missing <credentialId>\n${USAGE}`);
    return credentialId;
  };
  const now = new Date();
  switch (verb) {
    case 'issue': {
      const kind = values.kind;
      if (kind !== 'app-key' && kind !== 'user-token') throw new UsageError('paraph account key issue: --kind app-key or --kind user-token');
      const issued = await issueCredential(deps, 'cli', accountId, kind, values.label);
      return out({ ...credentialJson(issued.credential, now), Secret: issued.secret }, `${credentialLine(issued.credential, now)}\nsecret (shown once): ${issued.secret}\n`);
    }
    case 'list': {
      const credentials = await listAccountCredentials(deps, accountId);
      return out(credentials.map((c) => credentialJson(c, now)), credentials.map((c) => `${credentialLine(c, now)}\n`).join(''));
    }
    case 'rotate': {
      const overlap = values['overlap-seconds'];
      if (overlap !== undefined && !/^[0-9]{1,8}$/.test(overlap)) throw new UsageError('paraph account key rotate: --overlap-seconds takes a whole number of seconds');
      const rotated = await rotateCredential(deps, 'cli', accountId, needCredential(), overlap === undefined ? undefined : Number(overlap));
      return out(
        { ...credentialJson(rotated.credential, now), Secret: rotated.secret, Previous: credentialJson(rotated.previous, now) },
        `${credentialLine(rotated.previous, now)}\n${credentialLine(rotated.credential, now)}\nsecret (shown once): ${rotated.secret}\n`,
      );
    }
    case 'revoke': {
      const revoked = await revokeCredential(deps, 'cli', accountId, needCredential());
      return out(credentialJson(revoked, now), `${credentialLine(revoked, now)}\n`);
    }
    default:
      throw new UsageError(`paraph account key: unknown command ${JSON.stringify(verb)}\n${USAGE}`);
  }
}

async function runSeal(deps: SealAdminDeps, positionals: string[], values: Values, out: (json: unknown, text: string) => number, readSecret: () => Promise<string>): Promise<number> {
  const [verb, accountId] = positionals;
  if (accountId === undefined) throw new UsageError(`paraph account seal ${verb ?? ''}: missing <accountId>\n${USAGE}`);
  if (verb === 'remove') {
    const account = await removeAccountQualifiedSeal(deps, 'cli', accountId);
    return out(accountJson(account), `${accountLine(account)}\nno qualified seal: the account seals with its advanced seal\n`);
  }
  if (verb !== 'set') throw new UsageError(`paraph account seal: unknown command ${JSON.stringify(verb)}\n${USAGE}`);
  const module = values['pkcs11-module'];
  if ((values.pkcs12 === undefined) === (module === undefined)) throw new UsageError('paraph account seal set: --pkcs12 <file> or --pkcs11-module <path>');
  const slot = values.slot;
  if (slot !== undefined && !/^[0-9]{1,4}$/.test(slot)) throw new UsageError('paraph account seal set: --slot takes a slot index');
  const secret = await readSecret();
  const account = await setAccountQualifiedSeal(
    deps,
    'cli',
    accountId,
    values.pkcs12 !== undefined
      ? { Kind: 'Pkcs12', Pkcs12: readFileSync(values.pkcs12).toString('base64'), Password: secret }
      : {
          Kind: 'Pkcs11',
          Module: module as string,
          Pin: secret,
          ...(values['token-label'] !== undefined ? { TokenLabel: values['token-label'] } : {}),
          ...(slot !== undefined ? { SlotIndex: Number(slot) } : {}),
          ...(values['key-label'] !== undefined ? { KeyLabel: values['key-label'] } : {}),
        },
  );
  const certificate = account.QualifiedSeal?.Certificate;
  return out(
    accountJson(account),
    `${accountLine(account)}\nqualified seal: ${certificate?.Subject ?? '?'} (serial ${certificate?.Serial ?? '?'}, valid until ${certificate?.NotAfter ?? '?'})\n`,
  );
}

async function runLogo(deps: SealAdminDeps, positionals: string[], out: (json: unknown, text: string) => number): Promise<number> {
  const [verb, accountId, file] = positionals;
  if (accountId === undefined) throw new UsageError(`paraph account logo ${verb ?? ''}: missing <accountId>\n${USAGE}`);
  if (verb === 'remove') {
    const account = await removeAccountLogo(deps, 'cli', accountId);
    return out(accountJson(account), `${accountLine(account)}\nno logo\n`);
  }
  if (verb !== 'set') throw new UsageError(`paraph account logo: unknown command ${JSON.stringify(verb)}\n${USAGE}`);
  if (file === undefined) throw new UsageError(`paraph account logo set: missing <file>\n${USAGE}`);
  const account = await setAccountLogo(deps, 'cli', accountId, readAtMost(file, LOGO_LIMITS.maxBytes + 1));
  const logo = account.Logo;
  return out(accountJson(account), `${accountLine(account)}\nlogo: ${logo?.ContentType ?? '?'} ${logo?.Width ?? '?'}×${logo?.Height ?? '?'} (sha-256 ${logo?.Sha256 ?? '?'})\n`);
}

/** The first `limit` bytes of `file` (a larger file is refused by its size without being read whole). */
function readAtMost(file: string, limit: number): Uint8Array {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(limit);
    let length = 0;
    for (let n = -1; n !== 0 && length < limit; length += n) n = readSync(fd, buffer, length, limit - length, null);
    return new Uint8Array(buffer.subarray(0, length));
  } finally {
    closeSync(fd);
  }
}

function accountJson(a: Account): Record<string, unknown> {
  return {
    Id: a.Id,
    Name: a.Name,
    ...(a.NotificationEmail !== undefined ? { NotificationEmail: a.NotificationEmail } : {}),
    Disabled: a.Disabled === true,
    ...(a.QualifiedSeal !== undefined ? { QualifiedSeal: qualifiedSealSummary(a.QualifiedSeal) } : {}),
    ...(a.Logo !== undefined ? { Logo: a.Logo } : {}),
    ...(a.PreviousPostbackSecretValidUntil !== undefined ? { PreviousPostbackSecretValidUntil: a.PreviousPostbackSecretValidUntil } : {}),
    CreatedDateTime: a.CreatedDateTime,
  };
}

function accountLine(a: Account): string {
  return `${a.Id}  ${a.Disabled === true ? 'disabled' : 'enabled '}  ${a.Name}`;
}

function credentialStatus(c: AccountCredential, now: Date): string {
  if (c.revokedAt !== undefined) return 'revoked';
  if (c.validUntil !== undefined && c.validUntil.getTime() <= now.getTime()) return 'expired';
  return c.rotatedAt !== undefined ? `rotated, valid until ${c.validUntil?.toISOString() ?? '?'}` : 'active';
}

function credentialJson(c: AccountCredential, now: Date): Record<string, unknown> {
  return {
    Id: c.id,
    AccountId: c.accountId,
    Kind: c.kind,
    ...(c.label !== undefined ? { Label: c.label } : {}),
    Status: credentialStatus(c, now).split(',')[0],
    CreatedDateTime: c.createdAt.toISOString(),
    ...(c.validUntil !== undefined ? { ValidUntil: c.validUntil.toISOString() } : {}),
    ...(c.revokedAt !== undefined ? { RevokedDateTime: c.revokedAt.toISOString() } : {}),
  };
}

function credentialLine(c: AccountCredential, now: Date): string {
  return `${c.id}  ${c.kind}  ${credentialStatus(c, now)}${c.label !== undefined ? `  ${c.label}` : ''}`;
}
