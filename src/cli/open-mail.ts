/**
 * `paraph open-mail <file>`: prints the `.eml` text of a mail file the service sealed (`*.eml.sealed`, written
 * without SMTP into a mail directory inside the data directory). The key is PARAPH_MASTER_KEY, else the data
 * directory's `master.key`; without either the file stays closed.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { MAIL_FILE_PURPOSE, openSealedMail } from '../events/mail-transport.js';
import type { CliCommand } from './common.js';
import { readMasterKeyForCli } from './master-key-for-cli.js';

/** Opens one sealed mail file and writes the mail to stdout. */
export const openMailCommand: CliCommand = async (args, io) => {
  const { values, positionals } = parseArgs({ args, options: { 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  if (values.help || positionals.length !== 1) {
    io.stdout('usage: paraph open-mail <file.eml.sealed> [--data-dir <dir>]\n\nKey: PARAPH_MASTER_KEY, else <data dir>/master.key.\n');
    return values.help ? 0 : 2;
  }
  const key = await readMasterKeyForCli(values['data-dir']);
  const mail = openSealedMail(await readFile(positionals[0]!, 'utf8'), (sealed) => key.open(sealed, MAIL_FILE_PURPOSE));
  io.stdout(mail.toString('utf8'));
  return 0;
};
