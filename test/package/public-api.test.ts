/**
 * The library facade (src/index.ts, what `import … from 'paraph'` gives) and the entry points per layer
 * (src/entry/*.ts: `paraph/pdf`, `paraph/pades`, `paraph/receipt`, `paraph/server`): the values each exports are
 * exactly the documented groups below, and every one of them carries TSDoc. Adding to the facade is a decision: add
 * the name here and to the README's Library section.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as pades from '../../src/entry/pades.js';
import * as pdf from '../../src/entry/pdf.js';
import * as receipt from '../../src/entry/receipt.js';
import * as server from '../../src/entry/server.js';
import * as paraph from '../../src/index.js';

const SRC = resolve(import.meta.dirname, '../../src');

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** Every name an entry file exports (following `export *`), with the file it is declared in. */
function facadeExports(entry: string): { name: string; file: string }[] {
  return parse(entry).statements.flatMap((statement) => {
    if (!ts.isExportDeclaration(statement) || statement.moduleSpecifier === undefined) return [];
    const file = join(dirname(entry), (statement.moduleSpecifier as ts.StringLiteral).text.replace(/\.js$/, '.ts'));
    if (statement.exportClause === undefined) return facadeExports(file);
    if (!ts.isNamedExports(statement.exportClause)) return [];
    return statement.exportClause.elements.map((e) => ({ name: (e.propertyName ?? e.name).text, file }));
  });
}

/** Top-level declarations of a file by name (functions, classes, interfaces, types, enums, constants). */
const declarationsByFile = new Map<string, Map<string, ts.Node[]>>();

function topLevelDeclarations(file: string): Map<string, ts.Node[]> {
  const cached = declarationsByFile.get(file);
  if (cached) return cached;
  const byName = new Map<string, ts.Node[]>();
  const add = (name: string, node: ts.Node): void => void byName.set(name, [...(byName.get(name) ?? []), node]);
  for (const s of parse(file).statements) {
    if ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s) || ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s) || ts.isEnumDeclaration(s)) && s.name) {
      add(s.name.text, s);
    } else if (ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations) if (ts.isIdentifier(d.name)) add(d.name.text, s);
    }
  }
  declarationsByFile.set(file, byName);
  return byName;
}

const FACADE: Readonly<Record<string, readonly string[]>> = {
  errors: ['ParaphError', 'ValidationError', 'PdfParseError', 'PlacementError', 'SigningError', 'TimestampError', 'NativeModuleError', 'isInputError', 'isErrorCode', 'ERROR_CODES'],
  place: ['parseFileMetaData', 'validateFileMetaData', 'FIELD_TYPES', 'placeFieldsFromMetadata', 'resolvePlacements', 'resolveLocations', 'placeFields', 'indexText', 'findText', 'readFormFields'],
  sign: ['signPdf', 'sealPdf', 'prepareSignature', 'digestPreparedSignature', 'embedSignature', 'DEFAULT_CONTENTS_SIZE', 'listSignatureFields', 'createHttpTimestamper', 'createHttpRevocationFetcher', 'addValidationData', 'addDocumentTimestamp'],
  keys: ['createSoftwareSigner', 'generateKeyPair', 'importPkcs8Key', 'loadPkcs12Signer', 'openPkcs11Signer', 'createCertificateAuthority', 'loadCertificateAuthority', 'issueSigningIdentity'],
  verify: ['verifyPdf'],
  receipt: ['appendAuditEntry', 'verifyAuditLog', 'buildReceipt', 'verifyReceipt', 'readAuditLogAttachment'],
  postback: ['verifyPostback', 'TransactionStatus', 'ActivityCode'],
};
const SERVICE = ['loadConfig', 'createService', 'paraphPlugin', 'startServer'];

describe("paraph's public API (src/index.ts)", () => {
  it('exports exactly the values of the facade, no internal helper and nothing of the service', () => {
    expect(Object.keys(paraph).sort()).toEqual(Object.values(FACADE).flat().sort());
  });

  it('has one entry point per layer, each with the errors: paraph/pdf, paraph/pades, paraph/receipt, paraph/server', () => {
    const { errors, place, sign, keys, verify, receipt: receiptGroup, postback } = FACADE;
    expect(Object.keys(pdf).sort()).toEqual([...errors!, ...place!].sort());
    expect(Object.keys(pades).sort()).toEqual([...errors!, ...sign!, ...keys!, ...verify!].sort());
    expect(Object.keys(receipt).sort()).toEqual([...errors!, ...receiptGroup!].sort());
    expect(Object.keys(server).sort()).toEqual([...errors!, ...SERVICE, ...postback!].sort());
    // One class per error, whichever entry point it is imported from.
    expect(pades.ParaphError).toBe(paraph.ParaphError);
    expect(server.ParaphError).toBe(pdf.ParaphError);
  });

  it('lists every entry point in package.json, with types for the node10 resolution too', () => {
    const manifest = JSON.parse(readFileSync(resolve(SRC, '../package.json'), 'utf8')) as {
      exports: Record<string, string | Record<string, string>>;
      typesVersions: Record<string, Record<string, string[]>>;
    };
    const entries = { '.': 'index', './pdf': 'entry/pdf', './pades': 'entry/pades', './receipt': 'entry/receipt', './server': 'entry/server', './testing': 'testing/index' };
    for (const [subpath, file] of Object.entries(entries)) {
      expect(manifest.exports[subpath], subpath).toEqual({ types: `./dist/${file}.d.ts`, import: `./dist/${file}.js`, require: `./dist/${file}.js`, default: `./dist/${file}.js` });
      if (subpath !== '.') expect(manifest.typesVersions['*']?.[subpath.slice(2)], subpath).toEqual([`./dist/${file}.d.ts`]);
    }
  });

  it('documents every export with TSDoc', () => {
    const undocumented: string[] = [];
    let checked = 0;
    for (const { name, file } of [...facadeExports(join(SRC, 'index.ts')), ...facadeExports(join(SRC, 'entry/server.ts'))]) {
      const declarations = topLevelDeclarations(file).get(name);
      if (declarations === undefined) {
        undocumented.push(`${name} (not declared in ${file})`);
        continue;
      }
      checked++;
      if (!declarations.some((d) => ts.getJSDocCommentsAndTags(d).length > 0)) undocumented.push(name);
    }
    expect(checked).toBeGreaterThan(60);
    expect(undocumented).toEqual([]);
  });
});
