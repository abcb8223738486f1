/**
 * Schema errors become messages naming the field as a client reads it (docs/design/api.md#errors).
 */
import { describe, expect, it } from 'vitest';
import { fieldPath } from '../../src/http/validation-messages.js';
import { responseVersion } from '../../src/http/response-version.js';
import { credentialOf } from '../../src/http/auth.js';

describe('fieldPath', () => {
  it('writes array indexes in brackets and properties with dots', () => {
    expect(fieldPath('', 'Transaction')).toBe('Transaction');
    expect(fieldPath('/Signers/0/Email', 'Transaction')).toBe('Signers[0].Email');
    expect(fieldPath('/Signers/12/Verifications/3/Type', 'Transaction')).toBe('Signers[12].Verifications[3].Type');
    expect(fieldPath('/Context/a~1b', 'Transaction')).toBe('Context.a/b');
  });
});

describe('responseVersion', () => {
  it('is 2 only for the v2 media type, when preferred; v1, plain JSON and no Accept are 1', () => {
    expect(responseVersion('application/vnd.signhost.v2+json')).toBe(2);
    expect(responseVersion('application/json;q=0.9, application/vnd.signhost.v2+json')).toBe(2);
    // q-values count: plain JSON at 1 beats version 2 at 0.9.
    expect(responseVersion('application/json, application/vnd.signhost.v2+json;q=0.9')).toBe(1);
    expect(responseVersion('application/vnd.signhost.v1+json')).toBe(1);
    expect(responseVersion('application/json')).toBe(1);
    expect(responseVersion(undefined)).toBe(1);
  });
});

describe('credentialOf', () => {
  it('takes the value after the scheme, case-insensitively, and nothing else', () => {
    expect(credentialOf('APIKey abc', 'APIKey')).toBe('abc');
    expect(credentialOf('apikey  abc ', 'APIKey')).toBe('abc');
    expect(credentialOf('Bearer abc', 'APIKey')).toBeUndefined();
    expect(credentialOf('APIKey', 'APIKey')).toBeUndefined();
    expect(credentialOf('APIKey a b', 'APIKey')).toBeUndefined();
    expect(credentialOf(undefined, 'APIKey')).toBeUndefined();
  });
});
