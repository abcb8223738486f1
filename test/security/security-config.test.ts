/**
 * The security settings in the configuration: absent keys take the documented defaults (SECURITY.md),
 * set ones are validated with the variable named, and the file keys live under `security`.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SECURITY_SETTINGS, loadConfig, securitySettings } from '../../src/config.js';
import { ValidationError } from '../../src/errors.js';

describe('security settings', () => {
  it('zero configuration: the secure defaults (https postbacks only, no code logging, caps and timeouts set)', () => {
    const config = loadConfig({ env: {}, cwd: '/srv' });
    expect(config.security).toBeUndefined();
    expect(securitySettings(config)).toEqual(DEFAULT_SECURITY_SETTINGS);
    expect(DEFAULT_SECURITY_SETTINGS).toMatchObject({ postbackAllowHttp: false, postbackAllowedRanges: [], logVerificationCodes: false });
  });

  it('reads environment and file keys, the environment winning', () => {
    const config = loadConfig({
      env: { PARAPH_MAX_CONNECTIONS_PER_ADDRESS: '10', PARAPH_POSTBACK_ALLOW_HTTP: 'true', PARAPH_POSTBACK_ALLOWED_RANGES: '127.0.0.0/8, ::1' },
      fileText: JSON.stringify({ security: { maxConnectionsPerAddress: 99, maxPages: 7, logVerificationCodes: true } }),
    });
    expect(securitySettings(config)).toMatchObject({
      maxConnectionsPerAddress: 10,
      maxPages: 7,
      postbackAllowHttp: true,
      postbackAllowedRanges: ['127.0.0.0/8', '::1'],
      logVerificationCodes: true,
    });
  });

  it('names every bad value', () => {
    let issues: readonly string[] = [];
    try {
      loadConfig({ env: { PARAPH_HEADERS_TIMEOUT_MS: '0', PARAPH_POSTBACK_ALLOW_HTTP: 'yes', PARAPH_POSTBACK_ALLOWED_RANGES: '10.0.0.0/33,not-an-ip' } });
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      issues = (error as ValidationError).issues;
    }
    expect(issues).toEqual([
      'configuration: PARAPH_HEADERS_TIMEOUT_MS: must be an integer from 100 to 3600000 (got "0")',
      'configuration: PARAPH_POSTBACK_ALLOW_HTTP: must be true or false (got "yes")',
      'configuration: PARAPH_POSTBACK_ALLOWED_RANGES: "10.0.0.0/33" is not an IP address or CIDR range',
      'configuration: PARAPH_POSTBACK_ALLOWED_RANGES: "not-an-ip" is not an IP address or CIDR range',
    ]);
  });

  it('CA keys in a PKCS#11 token: module, PIN and token label, key labels defaulted; PIN and token required', () => {
    const config = loadConfig({ env: { PARAPH_CA_PKCS11_MODULE: '/usr/lib/softhsm/libsofthsm2.so', PARAPH_CA_PKCS11_PIN: '1', PARAPH_CA_PKCS11_TOKEN: 'ca' } });
    expect(config.caToken).toEqual({ modulePath: '/usr/lib/softhsm/libsofthsm2.so', pin: '1', tokenLabel: 'ca', signingCaKeyLabel: 'paraph-signing-ca', sealKeyLabel: 'paraph-seal' });
    expect(loadConfig({ env: {} }).caToken).toBeUndefined();
    expect(() => loadConfig({ env: { PARAPH_CA_PKCS11_MODULE: '/m.so' } })).toThrow(/PARAPH_CA_PKCS11_PIN: required with PARAPH_CA_PKCS11_MODULE/);
    expect(() => loadConfig({ env: { PARAPH_CA_PKCS11_MODULE: '/m.so', PARAPH_CA_PKCS11_PIN: '1' } })).toThrow(/PARAPH_CA_PKCS11_TOKEN: required/);
  });

  it('the field caps per document and per signer are read and checked (PARAPH_MAX_WIDGETS_PER_DOCUMENT, PARAPH_MAX_SIGNATURES_PER_SIGNER)', () => {
    expect(loadConfig({ env: { PARAPH_MAX_WIDGETS_PER_DOCUMENT: '300', PARAPH_MAX_SIGNATURES_PER_SIGNER: '5' } }).textIndexLimits).toEqual({ maxWidgetsPerDocument: 300, maxSignaturesPerSigner: 5 });
    expect(loadConfig({ env: {}, fileText: JSON.stringify({ textIndex: { maxSignaturesPerSigner: 7 } }) }).textIndexLimits).toEqual({ maxSignaturesPerSigner: 7 });
    expect(() => loadConfig({ env: { PARAPH_MAX_SIGNATURES_PER_SIGNER: '0' } })).toThrow(/PARAPH_MAX_SIGNATURES_PER_SIGNER/);
    expect(() => loadConfig({ env: { PARAPH_MAX_WIDGETS_PER_DOCUMENT: 'many' } })).toThrow(/PARAPH_MAX_WIDGETS_PER_DOCUMENT/);
  });

  it('the widgets-per-Location cap is a text index limit (PARAPH_MAX_WIDGETS_PER_LOCATION)', () => {
    expect(loadConfig({ env: { PARAPH_MAX_WIDGETS_PER_LOCATION: '25' } }).textIndexLimits).toEqual({ maxWidgetsPerLocation: 25 });
    expect(() => loadConfig({ env: { PARAPH_MAX_WIDGETS_PER_LOCATION: '0' } })).toThrow(/PARAPH_MAX_WIDGETS_PER_LOCATION/);
  });
});
