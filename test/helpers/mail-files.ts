/**
 * The mails a service wrote without SMTP into `<dataDir>/mail`: sealed under the data directory's master key there,
 * opened here with its `master.key` as `paraph open-mail` would.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MAIL_FILE_PURPOSE, openSealedMail, SEALED_MAIL_SUFFIX } from '../../src/events/mail-transport.js';
import { createMasterKey, parseMasterKey } from '../../src/store/master-key.js';

/** The `.eml` bytes of every sealed mail file under `<dataDir>/mail`, by file name. */
export async function readSealedMails(dataDir: string): Promise<Buffer[]> {
  const key = createMasterKey(parseMasterKey(await readFile(join(dataDir, 'master.key'), 'utf8')));
  const names = (await readdir(join(dataDir, 'mail'))).filter((f) => f.endsWith(SEALED_MAIL_SUFFIX));
  return Promise.all(names.map(async (name) => openSealedMail(await readFile(join(dataDir, 'mail', name), 'utf8'), (s) => key.open(s, MAIL_FILE_PURPOSE))));
}
