/**
 * Service configuration (docs/design/storage.md#running-the-service): zero-config defaults, environment over file, and
 * every bad value reported with the variable or key that holds it.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig, mailDirectory } from '../src/config.js';
import { ValidationError } from '../src/errors.js';

function issuesOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).issues;
  }
  throw new Error('expected a ValidationError');
}

describe('loadConfig', () => {
  it('runs with no configuration at all: 127.0.0.1:8080, ./data, public URL from host and port', () => {
    const config = loadConfig({ env: {}, cwd: '/srv/paraph' });
    expect(config).toEqual({
      host: '127.0.0.1',
      port: 8080,
      dataDir: '/srv/paraph/data',
      publicUrl: 'http://127.0.0.1:8080',
      publicUrlFromListenAddress: true,
      retentionDays: 30,
      postbackSecretOverlapSeconds: 86400,
      deleteGraceMinutes: 15,
      maxFileBytes: 50 * 1024 * 1024,
      fileReplaceGuardMs: 1000,
      workerIntervalMs: 5000,
      organizationName: 'paraph',
      logLevel: 'info',
    });
  });

  it('reads every variable; the environment wins over the config file', () => {
    const config = loadConfig({
      env: {
        HOST: '0.0.0.0',
        PORT: '9000',
        PARAPH_DATA_DIR: '/var/lib/paraph',
        PARAPH_PUBLIC_URL: 'https://sign.example.com/',
        PARAPH_TSA_URL: 'http://tsa.example.com/tsr',
        PARAPH_RETENTION_DAYS: '0',
        PARAPH_DELETE_GRACE_MINUTES: '5',
        PARAPH_SMTP_URL: 'smtp://mail.example.com:25',
        PARAPH_USER_TOKEN: 'u',
        PARAPH_APP_KEY: 'a',
        PARAPH_POSTBACK_SECRET: 's',
      },
      fileText: JSON.stringify({ port: 7000, maxFileBytes: 4096, qualifiedSeal: { pkcs12: 'qseal.p12', password: 'pw' } }),
      fileName: 'paraph.json',
      cwd: '/etc/paraph',
    });
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 9000,
      dataDir: '/var/lib/paraph',
      publicUrl: 'https://sign.example.com',
      tsaUrl: 'http://tsa.example.com/tsr',
      retentionDays: 0,
      deleteGraceMinutes: 5,
      maxFileBytes: 4096,
      smtpUrl: 'smtp://mail.example.com:25',
      qualifiedSeal: { kind: 'pkcs12', path: '/etc/paraph/qseal.p12', password: 'pw' },
      bootstrapAccount: { userToken: 'u', appKey: 'a' },
      postbackSecret: 's',
    });
  });

  it('names every bad value', () => {
    const issues = issuesOf(() =>
      loadConfig({
        env: { PORT: 'eighty', PARAPH_PUBLIC_URL: 'ftp://x', PARAPH_RETENTION_DAYS: '-1', PARAPH_LOG_LEVEL: 'loud', PARAPH_USER_TOKEN: 'only-one' },
        fileText: JSON.stringify({ colour: 'blue', qualifiedSeal: { pkcs11Module: '/lib/x.so' } }),
        fileName: 'c.json',
      }),
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        'configuration: PORT: must be an integer from 0 to 65535 (got "eighty")',
        'configuration: PARAPH_PUBLIC_URL: must be a http: or https: URL (got "ftp://x")',
        'configuration: PARAPH_RETENTION_DAYS: must be an integer from 0 to 36500 (got "-1")',
        expect.stringMatching(/^configuration: PARAPH_LOG_LEVEL: must be one of fatal, error/),
        'configuration: PARAPH_USER_TOKEN and PARAPH_APP_KEY: set both or neither',
        expect.stringMatching(/^configuration: c.json: unknown key "colour"/),
        'configuration: PARAPH_QSEAL_PKCS11_PIN: required with PARAPH_QSEAL_PKCS11_MODULE',
      ]),
    );
  });

  it('reads the text engine (PARAPH_TEXT_ENGINE or textIndex.engine) and refuses an unknown one', () => {
    expect(loadConfig({ env: {} }).textEngine).toBeUndefined();
    expect(loadConfig({ env: { PARAPH_TEXT_ENGINE: 'pdfium' } }).textEngine).toBe('pdfium');
    expect(loadConfig({ env: {}, fileText: JSON.stringify({ textIndex: { engine: 'pdfjs' } }), fileName: 'c.json' }).textEngine).toBe('pdfjs');
    expect(issuesOf(() => loadConfig({ env: { PARAPH_TEXT_ENGINE: 'mupdf' } }))).toEqual([
      expect.stringMatching(/PARAPH_TEXT_ENGINE: must be pdfjs or pdfium \(got "mupdf"\)/),
    ]);
  });

  it('reads the sender name and the Reply-To address, and refuses a Reply-To that is not one address', () => {
    const config = loadConfig({ env: { PARAPH_SENDER_NAME: 'Sanne de Vries', PARAPH_MAIL_REPLY_TO: 'contracts@example.com' } });
    expect(config).toMatchObject({ senderName: 'Sanne de Vries', mailReplyTo: 'contracts@example.com' });
    expect(loadConfig({ env: {} }).mailReplyTo).toBeUndefined();
    expect(issuesOf(() => loadConfig({ env: { PARAPH_MAIL_REPLY_TO: 'a@example.com, b@example.com' } }))).toEqual([
      expect.stringMatching(/PARAPH_MAIL_REPLY_TO: must be one e-mail address/),
    ]);
  });

  it('refuses a config file that is not a JSON object', () => {
    expect(issuesOf(() => loadConfig({ env: {}, fileText: '[1]', fileName: 'c.json' }))).toEqual(['configuration: c.json: must be a JSON object']);
    expect(issuesOf(() => loadConfig({ env: {}, fileText: '{', fileName: 'c.json' }))[0]).toMatch(/c.json: not valid JSON/);
  });

  it('in PostgreSQL mode, refuses to start without an SMTP server unless a mail directory is named', () => {
    const pg = { PARAPH_DATABASE_URL: 'postgres://paraph:secret@db.internal:5432/paraph' };
    const issues = issuesOf(() => loadConfig({ env: pg }));
    expect(issues).toEqual([expect.stringMatching(/^configuration: PARAPH_DATABASE_URL: .*PARAPH_SMTP_URL.*PARAPH_MAIL_DIR/)]);
    expect(issues.join()).not.toContain('secret');
    expect(loadConfig({ env: { ...pg, PARAPH_SMTP_URL: 'smtp://mail.example.com:25' } }).mailDir).toBeUndefined();
    expect(loadConfig({ env: { ...pg, PARAPH_MAIL_DIR: 'outgoing' }, cwd: '/srv/paraph' }).mailDir).toBe('/srv/paraph/outgoing');
    expect(issuesOf(() => loadConfig({ env: {}, fileText: JSON.stringify({ databaseUrl: pg.PARAPH_DATABASE_URL }), fileName: 'c.json' }))).toEqual([
      expect.stringMatching(/^configuration: c.json: databaseUrl: .*PARAPH_SMTP_URL/),
    ]);
  });

  it('on the embedded store, mails without SMTP go to PARAPH_MAIL_DIR when named, else under the data directory', () => {
    expect(mailDirectory(loadConfig({ env: {}, cwd: '/srv/paraph' }))).toBe('/srv/paraph/data/mail');
    expect(mailDirectory(loadConfig({ env: { PARAPH_MAIL_DIR: '/var/mail/paraph' }, cwd: '/srv/paraph' }))).toBe('/var/mail/paraph');
  });
});

describe('mailDirectory', () => {
  it('refuses a PostgreSQL configuration built by hand without SMTP server or mail directory', () => {
    const base = loadConfig({ env: {}, cwd: '/srv/paraph' });
    expect(() => mailDirectory({ ...base, databaseUrl: 'postgres://db/paraph' })).toThrow(/PARAPH_SMTP_URL/);
    expect(mailDirectory({ ...base, databaseUrl: 'postgres://db/paraph', mailDir: '/shared/mail' })).toBe('/shared/mail');
  });
});
