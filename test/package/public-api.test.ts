/**
 * The library facade (src/index.ts, what `import … from 'paraph'` gives): the values it exports are exactly the
 * documented groups below, and every one of them carries TSDoc. Adding to the facade is a decision: add the name
 * here and to the README's Library section.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as paraph from '../../src/index.js';

const SRC = resolve(import.meta.dirname, '../../src');

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** Every name src/index.ts exports, with the file it comes from. */
function facadeExports(): { name: string; file: string }[] {
  return parse(join(SRC, 'index.ts')).statements.flatMap((statement) => {
    if (!ts.isExportDeclaration(statement) || statement.moduleSpecifier === undefined) return [];
    if (statement.exportClause === undefined || !ts.isNamedExports(statement.exportClause)) return [];
    const file = join(SRC, (statement.moduleSpecifier as ts.StringLiteral).text.replace(/\.js$/, '.ts'));
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
  service: ['loadConfig', 'createService', 'paraphPlugin', 'startServer', 'verifyPostback', 'TransactionStatus', 'ActivityCode'],
};

describe("paraph's public API (src/index.ts)", () => {
  it('exports exactly the values of the facade, no internal helper', () => {
    expect(Object.keys(paraph).sort()).toEqual(Object.values(FACADE).flat().sort());
  });

  it('documents every export with TSDoc', () => {
    const undocumented: string[] = [];
    let checked = 0;
    for (const { name, file } of facadeExports()) {
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
