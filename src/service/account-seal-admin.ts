/**
 * Setting an account's own qualified seal (docs/design/accounts.md#seals), for the admin API and the CLI: the key is
 * opened and its certificate checked before anything is stored, so a seal that cannot seal is refused at once with
 * its reason; the secrets (PKCS#12 file and password, PIN) are stored sealed with the master key. Every change, and
 * every refused attempt, is an admin audit entry without the secrets.
 */
import { randomUUID, X509Certificate } from 'node:crypto';
import { isAbsolute } from 'node:path';
import type { Account, AccountQualifiedSeal } from '../domain/account.js';
import { formatTime, type JsonValue } from '../domain/transaction.js';
import { ParaphError, ValidationError } from '../errors.js';
import type { MasterKey } from '../store/master-key.js';
import { SEAL_PURPOSE } from '../store/sealed-secrets.js';
import { showAccount, type AdminActor } from './account-admin.js';
import { openQualifiedSealKey, sealCertificateProblem } from './keys/account-seals.js';
import type { CredentialDeps } from './keys/credentials.js';
import { ServiceError } from './service-error.js';

/** A qualified seal as the admin gives it: a PKCS#12 file (base64) and its password, or a key on a PKCS#11 token. */
export type QualifiedSealInput =
  | { readonly Kind: 'Pkcs12'; readonly Pkcs12: string; readonly Password: string }
  | { readonly Kind: 'Pkcs11'; readonly Module: string; readonly TokenLabel?: string; readonly SlotIndex?: number; readonly KeyLabel?: string; readonly Pin: string };

/** What setting a seal needs besides the store: the master key, and the PKCS#11 modules an admin may name. */
export interface SealAdminDeps extends CredentialDeps {
  readonly secrets?: MasterKey;
  /** Module paths the admin API may load; undefined: any (the CLI, run by the operator on the machine). */
  readonly allowedPkcs11Modules?: readonly string[];
}

/** The largest PKCS#12 file accepted (a key store holds a key and a few certificates). */
const MAX_PKCS12_BYTES = 64 * 1024;

function inputProblems(input: QualifiedSealInput, allowed: readonly string[] | undefined): string[] {
  const issues: string[] = [];
  if (input.Kind === 'Pkcs12') {
    const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(input.Pkcs12) ? Buffer.from(input.Pkcs12, 'base64').length : 0;
    if (bytes === 0 || bytes > MAX_PKCS12_BYTES) issues.push(`Pkcs12: the .p12/.pfx file in base64, at most ${MAX_PKCS12_BYTES} bytes`);
    if (input.Password.length > 1024) issues.push('Password: at most 1024 characters');
    return issues;
  }
  if (!isAbsolute(input.Module) || input.Module.length > 4096) issues.push('Module: the absolute path of the PKCS#11 module');
  else if (allowed !== undefined && !allowed.includes(input.Module)) {
    issues.push(`Module: ${JSON.stringify(input.Module)} is not one of the modules the service may load (PARAPH_PKCS11_MODULES: ${allowed.map((m) => JSON.stringify(m)).join(', ') || 'none'})`);
  }
  if (input.TokenLabel !== undefined && (input.TokenLabel === '' || input.TokenLabel.length > 32)) issues.push('TokenLabel: 1 to 32 characters');
  if (input.SlotIndex !== undefined && (!Number.isSafeInteger(input.SlotIndex) || input.SlotIndex < 0 || input.SlotIndex > 1023)) issues.push('SlotIndex: a whole number from 0 to 1023');
  if (input.TokenLabel !== undefined && input.SlotIndex !== undefined) issues.push('TokenLabel, SlotIndex: give one of them');
  if (input.KeyLabel !== undefined && (input.KeyLabel === '' || input.KeyLabel.length > 255)) issues.push('KeyLabel: 1 to 255 characters');
  if (input.Pin === '' || input.Pin.length > 256) issues.push('Pin: 1 to 256 characters');
  return issues;
}

async function audit(deps: CredentialDeps, actor: AdminActor, action: string, accountId: string, data: JsonValue): Promise<void> {
  await deps.store.appendAdminAudit({ at: deps.clock(), actor, action, accountId, data });
}

/** What the audit and the admin's view say of a configuration: where the key is and its certificate, never a secret. */
export function qualifiedSealSummary(config: AccountQualifiedSeal): Record<string, JsonValue> {
  return {
    Kind: config.Kind,
    ...(config.Kind === 'Pkcs11'
      ? { Module: config.Module, ...(config.TokenLabel !== undefined ? { TokenLabel: config.TokenLabel } : {}), ...(config.SlotIndex !== undefined ? { SlotIndex: config.SlotIndex } : {}), ...(config.KeyLabel !== undefined ? { KeyLabel: config.KeyLabel } : {}) }
      : {}),
    Certificate: config.Certificate,
    SetDateTime: config.SetDateTime,
  };
}

/**
 * Sets the account's qualified seal after opening the key and checking its certificate (valid now, key usage allowing
 * signing). @throws ValidationError `INVALID_REQUEST`, ParaphError of the key store (`PKCS12_WRONG_PASSWORD`,
 * `PKCS11_LOGIN_FAILED`, …) or `QUALIFIED_SEAL_EXPIRED`, `QUALIFIED_SEAL_NOT_YET_VALID`, `QUALIFIED_SEAL_KEY_USAGE`;
 * nothing is stored then.
 */
export async function setAccountQualifiedSeal(deps: SealAdminDeps, actor: AdminActor, accountId: string, input: QualifiedSealInput): Promise<Account> {
  const account = await showAccount(deps, accountId);
  const issues = inputProblems(input, deps.allowedPkcs11Modules);
  if (issues.length > 0) throw new ValidationError(issues, 'INVALID_REQUEST');
  const secrets = deps.secrets;
  if (secrets === undefined) throw new ServiceError('MASTER_KEY_REQUIRED', 'A qualified seal is stored with its secrets sealed: open the store with its master key.', { origin: 'internal' });
  const now = deps.clock();
  const common = { Id: randomUUID(), SetDateTime: formatTime(now), Certificate: { Subject: '', Serial: '', Issuer: '', NotAfter: '' } };
  const draft: AccountQualifiedSeal =
    input.Kind === 'Pkcs12'
      ? { ...common, Kind: 'Pkcs12', Pkcs12Sealed: secrets.seal(input.Pkcs12, SEAL_PURPOSE.qualifiedSealPkcs12), PasswordSealed: secrets.seal(input.Password, SEAL_PURPOSE.qualifiedSealPassword) }
      : {
          ...common,
          Kind: 'Pkcs11',
          Module: input.Module,
          ...(input.TokenLabel !== undefined ? { TokenLabel: input.TokenLabel } : {}),
          ...(input.SlotIndex !== undefined ? { SlotIndex: input.SlotIndex } : {}),
          ...(input.KeyLabel !== undefined ? { KeyLabel: input.KeyLabel } : {}),
          PinSealed: secrets.seal(input.Pin, SEAL_PURPOSE.qualifiedSealPin),
        };
  const where = { Kind: input.Kind, ...(input.Kind === 'Pkcs11' ? { Module: input.Module, ...(input.TokenLabel !== undefined ? { TokenLabel: input.TokenLabel } : {}), ...(input.KeyLabel !== undefined ? { KeyLabel: input.KeyLabel } : {}) } : {}) };
  let certificate: AccountQualifiedSeal['Certificate'];
  try {
    const signer = await openQualifiedSealKey(draft, secrets);
    try {
      const leaf = signer.certificateChain[0];
      if (leaf === undefined) throw new ServiceError('QUALIFIED_SEAL_NO_CERTIFICATE', 'The key comes with no certificate: store the seal certificate with it.');
      const problem = sealCertificateProblem(leaf, now);
      if (problem !== undefined) throw new ServiceError(problem.code, problem.message);
      const cert = new X509Certificate(leaf);
      const line = (name: string): string => name.split('\n').filter(Boolean).join(', ');
      certificate = { Subject: line(cert.subject), Serial: cert.serialNumber.toLowerCase(), Issuer: line(cert.issuer), NotAfter: new Date(cert.validTo).toISOString() };
    } finally {
      await signer.close?.().catch(() => undefined);
    }
  } catch (error) {
    if (error instanceof ParaphError) await audit(deps, actor, 'account.qualified-seal-refused', accountId, { ...where, code: error.code });
    throw error;
  }
  const config: AccountQualifiedSeal = { ...draft, Certificate: certificate };
  const next: Account = { ...(await showAccount(deps, accountId)), QualifiedSeal: config };
  await deps.store.updateAccount(next);
  await audit(deps, actor, 'account.qualified-seal-set', account.Id, qualifiedSealSummary(config));
  return next;
}

/** Removes the account's qualified seal: its seals go back to its advanced seal. */
export async function removeAccountQualifiedSeal(deps: CredentialDeps, actor: AdminActor, accountId: string): Promise<Account> {
  const { QualifiedSeal: had, ...rest } = await showAccount(deps, accountId);
  if (had !== undefined) {
    await deps.store.updateAccount(rest);
    await audit(deps, actor, 'account.qualified-seal-removed', accountId, { Kind: had.Kind });
  }
  return rest;
}
