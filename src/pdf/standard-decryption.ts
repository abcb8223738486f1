/**
 * Decryption of a document protected by the standard security handler (ISO 32000-2 §7.6.4) whose empty password
 * opens it — as the user password or as the owner password — for the files PDFium refuses although other readers
 * open them (an RC4/AES key derived with `/EncryptMetadata false`, an AES-256 file whose empty password is the owner
 * password). Every string and stream is decrypted in place in a pdf-lib document and the encryption dictionary
 * dropped; the caller writes the result as a new file. Revisions 2 to 6. Object streams are decrypted in the bytes
 * before pdf-lib parses them (it expands them as it reads), and the objects they hold, encrypted only as part of
 * their stream, are then left as they are.
 */
import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { inflateSync, constants as zlibConstants } from 'node:zlib';
import { PDFArray, PDFBool, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFString, type PDFObject } from './pdf-lib.js';
import { withPdfLibQuiet } from './silence-pdf-lib.js';

const PASSWORD_PADDING = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');

type Method = 'none' | 'rc4' | 'aes128' | 'aes256';

/** How a document is encrypted, once the empty password has opened it. */
interface Opened {
  readonly key: Buffer;
  readonly strings: Method;
  readonly streams: Method;
  readonly encryptMetadata: boolean;
  /** The method of a crypt filter the encryption dictionary names (Identity: none). */
  readonly filter: (name: PDFName) => Method | undefined;
}

/**
 * Decrypts `doc` (loaded with `ignoreEncryption`) in place with the empty password and removes its /Encrypt. False,
 * leaving `doc` untouched, when the empty password does not open it or its encryption is not one this module reads.
 */
function decryptWithEmptyPassword(doc: PDFDocument, opened: Opened, inObjectStreams: ReadonlySet<number>): void {
  const context = doc.context;
  const encryptRef = context.trailerInfo.Encrypt;
  const encrypt = context.lookup(encryptRef);
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    if (ref === encryptRef || object === encrypt || inObjectStreams.has(ref.objectNumber)) continue;
    const decrypt = (method: Method, bytes: Uint8Array): Uint8Array => decryptBytes(method, objectKey(opened.key, method, ref), bytes);
    if (object instanceof PDFRawStream) {
      decryptStrings(object.dict, (bytes) => decrypt(opened.strings, bytes));
      const type = object.dict.get(PDFName.of('Type'));
      if (type === PDFName.of('XRef')) continue;
      const own = ownCryptFilter(object.dict, opened);
      if (own === undefined && type === PDFName.of('Metadata') && !opened.encryptMetadata) continue;
      context.assign(ref, PDFRawStream.of(object.dict, decrypt(own ?? opened.streams, object.contents)));
    } else {
      const replaced = decryptStrings(object, (bytes) => decrypt(opened.strings, bytes));
      if (replaced !== object) context.assign(ref, replaced);
    }
  }
  context.delete(encryptRef as PDFRef);
  context.trailerInfo.Encrypt = undefined;
}

/**
 * The method of a stream that names its own crypt filter (a /Crypt first in its /Filter, e.g. metadata left in clear
 * with /Identity), which is then removed from the stream's filters; undefined for a stream that names none.
 */
function ownCryptFilter(dict: PDFDict, opened: Opened): Method | undefined {
  const filter = dict.get(PDFName.of('Filter'));
  const filters = filter instanceof PDFArray ? filter : undefined;
  if ((filters ? filters.get(0) : filter) !== PDFName.of('Crypt')) return undefined;
  const parms = dict.get(PDFName.of('DecodeParms'));
  const parmsList = parms instanceof PDFArray ? parms : undefined;
  const own = parmsList ? parmsList.get(0) : parms;
  const name = own instanceof PDFDict ? own.get(PDFName.of('Name')) : undefined;
  if (filters && filters.size() > 1) filters.remove(0);
  else dict.delete(PDFName.of('Filter'));
  if (parmsList && parmsList.size() > 1) parmsList.remove(0);
  else if (parms !== undefined) dict.delete(PDFName.of('DecodeParms'));
  return name instanceof PDFName ? (opened.filter(name) ?? 'none') : 'none';
}

/** How the empty password opens `doc` (loaded with `ignoreEncryption`), or undefined when it does not. */
function openDocument(doc: PDFDocument): Opened | undefined {
  const context = doc.context;
  const encrypt = context.lookup(context.trailerInfo.Encrypt);
  if (!(encrypt instanceof PDFDict) || encrypt.get(PDFName.of('Filter')) !== PDFName.of('Standard')) return undefined;
  return open(encrypt, firstId(context.trailerInfo.ID ? context.lookup(context.trailerInfo.ID) : undefined));
}

/** The file key and methods when the empty password opens the document, else undefined. */
function open(encrypt: PDFDict, id: Uint8Array): Opened | undefined {
  const number = (key: string, fallback: number): number => {
    const value = encrypt.get(PDFName.of(key));
    return value instanceof PDFNumber ? value.asNumber() : fallback;
  };
  const bytes = (key: string): Buffer => {
    const value = encrypt.get(PDFName.of(key));
    return value instanceof PDFString || value instanceof PDFHexString ? Buffer.from(value.asBytes()) : Buffer.alloc(0);
  };
  const v = number('V', 0);
  const r = number('R', 0);
  const metadataFlag = encrypt.get(PDFName.of('EncryptMetadata'));
  const encryptMetadata = !(metadataFlag instanceof PDFBool && !metadataFlag.asBoolean());
  const filter = (name: PDFName): Method | undefined => {
    if (name === PDFName.of('Identity')) return 'none';
    const cf = encrypt.lookup(PDFName.of('CF'));
    const entry = cf instanceof PDFDict ? cf.lookup(name) : undefined;
    const cfm = entry instanceof PDFDict ? entry.get(PDFName.of('CFM')) : undefined;
    if (cfm === PDFName.of('V2')) return 'rc4';
    if (cfm === PDFName.of('AESV2')) return 'aes128';
    if (cfm === PDFName.of('AESV3')) return 'aes256';
    if (cfm === undefined || cfm === PDFName.of('None')) return 'none';
    return undefined;
  };
  const methodOf = (key: string): Method | undefined => {
    if (v < 4) return 'rc4';
    const name = encrypt.get(PDFName.of(key));
    return name instanceof PDFName ? filter(name) : 'none';
  };
  const strings = methodOf('StrF');
  const streams = methodOf('StmF');
  if (strings === undefined || streams === undefined) return undefined;
  const o = bytes('O');
  const u = bytes('U');
  let key: Buffer | undefined;
  if (r >= 5) key = openAes256(r, o, u, bytes('OE'), bytes('UE'));
  else if (r >= 2) {
    const length = v === 1 ? 5 : Math.min(16, Math.max(5, Math.floor(number('Length', 40) / 8)));
    const p = number('P', 0);
    key = openRc4Md5(r, length, Buffer.alloc(0), o, u, p, id, encryptMetadata);
    // The empty password may be the owner password: it unlocks the user password, which unlocks the key.
    if (!key) key = openRc4Md5(r, length, userPasswordFromOwner(r, length, Buffer.alloc(0), o), o, u, p, id, encryptMetadata);
  }
  if (!key) return undefined;
  // A key shorter than 16 bytes under crypt filters (/V 4, e.g. /Length 40) is padded with zeros before objects are
  // decrypted: what Acrobat does, and pdf.js after it, though no edition of the standard says so.
  if (v === 4 && key.length < 16) key = Buffer.concat([key, Buffer.alloc(16 - key.length)]);
  return { key, strings, streams, encryptMetadata, filter };
}

/** Algorithms 2 and 4/5 of the standard handler: the key `password` gives, when /U confirms it. */
function openRc4Md5(r: number, length: number, password: Buffer, o: Buffer, u: Buffer, p: number, id: Uint8Array, encryptMetadata: boolean): Buffer | undefined {
  const permissions = Buffer.alloc(4);
  permissions.writeInt32LE(p | 0);
  const md5 = createHash('md5').update(padded(password)).update(o.subarray(0, 32)).update(permissions).update(id);
  if (r >= 4 && !encryptMetadata) md5.update(Buffer.from([0xff, 0xff, 0xff, 0xff]));
  let key = md5.digest().subarray(0, length);
  if (r >= 3) for (let i = 0; i < 50; i++) key = createHash('md5').update(key).digest().subarray(0, length);
  let check: Buffer;
  if (r === 2) check = rc4(key, PASSWORD_PADDING);
  else {
    check = createHash('md5').update(PASSWORD_PADDING).update(id).digest();
    for (let i = 0; i < 20; i++) check = rc4(xorKey(key, i), check);
  }
  const compared = r === 2 ? 32 : 16;
  return u.length >= compared && check.subarray(0, compared).equals(u.subarray(0, compared)) ? key : undefined;
}

/** Algorithm 7: the user password that the owner password `password` unlocks from /O. */
function userPasswordFromOwner(r: number, length: number, password: Buffer, o: Buffer): Buffer {
  let hash = createHash('md5').update(padded(password)).digest();
  if (r >= 3) for (let i = 0; i < 50; i++) hash = createHash('md5').update(hash).digest();
  const key = hash.subarray(0, length);
  let user: Buffer = Buffer.from(o.subarray(0, 32));
  if (r === 2) return rc4(key, user);
  for (let i = 19; i >= 0; i--) user = rc4(xorKey(key, i), user);
  return user;
}

/** Algorithms 2.A/2.B (revisions 5 and 6): the file key the empty password unlocks, as user or as owner. */
function openAes256(r: number, o: Buffer, u: Buffer, oe: Buffer, ue: Buffer): Buffer | undefined {
  if (o.length < 48 || u.length < 48 || oe.length < 32 || ue.length < 32) return undefined;
  const password = Buffer.alloc(0);
  const user = u.subarray(0, 48);
  if (hardenedHash(r, password, u.subarray(32, 40), Buffer.alloc(0)).equals(u.subarray(0, 32))) {
    return aes256NoPadding(hardenedHash(r, password, u.subarray(40, 48), Buffer.alloc(0)), ue.subarray(0, 32));
  }
  if (hardenedHash(r, password, o.subarray(32, 40), user).equals(o.subarray(0, 32))) {
    return aes256NoPadding(hardenedHash(r, password, o.subarray(40, 48), user), oe.subarray(0, 32));
  }
  return undefined;
}

function hardenedHash(r: number, password: Buffer, salt: Buffer, userKey: Buffer): Buffer {
  let k = createHash('sha256').update(password).update(salt).update(userKey).digest();
  if (r === 5) return k;
  for (let round = 0; ; round++) {
    const k1 = Buffer.concat(Array.from({ length: 64 }, () => Buffer.concat([password, k, userKey])));
    const cipher = createCipheriv('aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32)).setAutoPadding(false);
    const e = Buffer.concat([cipher.update(k1), cipher.final()]);
    let sum = 0;
    for (let i = 0; i < 16; i++) sum += e[i]!;
    k = createHash(['sha256', 'sha384', 'sha512'][sum % 3]!).update(e).digest();
    if (round >= 63 && e[e.length - 1]! <= round - 31) return k.subarray(0, 32);
  }
}

function aes256NoPadding(key: Buffer, data: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-cbc', key, Buffer.alloc(16)).setAutoPadding(false);
  return Buffer.concat([decipher.update(data), decipher.final()]);
}

/** Algorithm 1: the key of one object (revisions 2–4); the file key itself for AES-256. */
function objectKey(key: Buffer, method: Method, ref: PDFRef): Buffer {
  if (method === 'aes256') return key;
  const suffix = Buffer.from([ref.objectNumber & 0xff, (ref.objectNumber >> 8) & 0xff, (ref.objectNumber >> 16) & 0xff, ref.generationNumber & 0xff, (ref.generationNumber >> 8) & 0xff]);
  const md5 = createHash('md5').update(key).update(suffix);
  if (method === 'aes128') md5.update('sAlT');
  return md5.digest().subarray(0, Math.min(16, key.length + 5));
}

function decryptBytes(method: Method, key: Buffer, bytes: Uint8Array): Uint8Array {
  if (method === 'none') return bytes;
  if (method === 'rc4') return rc4(key, Buffer.from(bytes));
  // AES: a 16-byte initialization vector, then CBC blocks with PKCS#7 padding (tolerated when it is wrong).
  if (bytes.length < 32 || bytes.length % 16 !== 0) return new Uint8Array(0);
  const cipher = method === 'aes128' ? 'aes-128-cbc' : 'aes-256-cbc';
  const iv = bytes.subarray(0, 16);
  const body = bytes.subarray(16);
  try {
    const decipher = createDecipheriv(cipher, key, iv);
    return Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    const decipher = createDecipheriv(cipher, key, iv).setAutoPadding(false);
    return Buffer.concat([decipher.update(body), decipher.final()]);
  }
}

/** `object` with every string in it decrypted: dictionaries and arrays in place, a bare string as a new one. */
function decryptStrings(object: PDFObject, decrypt: (bytes: Uint8Array) => Uint8Array): PDFObject {
  if (object instanceof PDFString || object instanceof PDFHexString) return PDFHexString.of(Buffer.from(decrypt(object.asBytes())).toString('hex'));
  if (object instanceof PDFDict) {
    for (const [key, value] of object.entries()) {
      const replaced = decryptStrings(value, decrypt);
      if (replaced !== value) object.set(key, replaced);
    }
  } else if (object instanceof PDFArray) {
    for (let i = 0; i < object.size(); i++) {
      const value = object.get(i);
      const replaced = decryptStrings(value, decrypt);
      if (replaced !== value) object.set(i, replaced);
    }
  }
  return object;
}

function firstId(id: PDFObject | undefined): Uint8Array {
  const first = id instanceof PDFArray ? id.get(0) : undefined;
  return first instanceof PDFString || first instanceof PDFHexString ? first.asBytes() : new Uint8Array(0);
}

function padded(password: Buffer): Buffer {
  return Buffer.concat([password.subarray(0, 32), PASSWORD_PADDING]).subarray(0, 32);
}

function xorKey(key: Buffer, value: number): Buffer {
  return Buffer.from(key.map((byte) => byte ^ value));
}

/** RC4 (no longer offered by every OpenSSL build, so done here; it only ever decrypts). */
function rc4(key: Buffer, data: Buffer): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 0xff;
    j = (j + s[i]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 0xff]!;
  }
  return out;
}

/**
 * A new file with the content of `pdf` decrypted with the empty password (pdf-lib's full rewrite), or undefined when
 * pdf-lib cannot parse it or the empty password does not open it.
 */
export async function decryptedCopy(pdf: Uint8Array): Promise<Uint8Array | undefined> {
  const load = (bytes: Uint8Array): Promise<PDFDocument> =>
    withPdfLibQuiet(() => PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: false, ignoreEncryption: true }));
  try {
    let doc = await load(pdf);
    const opened = openDocument(doc);
    if (!opened) return undefined;
    let inObjectStreams = new Set<number>();
    if (Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).includes('/ObjStm')) {
      // pdf-lib expands object streams as it parses, which it cannot do before they are decrypted: decrypt them in
      // the bytes, then parse again (the first parse found the encryption dictionary, never in an object stream).
      const decrypted = withObjectStreamsDecrypted(pdf, opened);
      doc = await load(decrypted.bytes);
      inObjectStreams = decrypted.objects;
    }
    decryptWithEmptyPassword(doc, opened, inObjectStreams);
    return await withPdfLibQuiet(() => doc.save({ useObjectStreams: false, updateFieldAppearances: false, addDefaultPage: false }));
  } catch {
    return undefined;
  }
}

/**
 * `pdf` with the data of every object stream decrypted in place (pdf-lib finds a stream's end by its `endstream`
 * when /Length no longer fits, as after AES's shorter plaintext), and the numbers of the objects those streams hold.
 */
function withObjectStreamsDecrypted(pdf: Uint8Array, opened: Opened): { bytes: Uint8Array; objects: Set<number> } {
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('latin1');
  const chunks: Uint8Array[] = [];
  const objects = new Set<number>();
  let copied = 0;
  for (const match of text.matchAll(/(\d+)\s+(\d+)\s+obj\b/g)) {
    const start = match.index + match[0].length;
    if (start < copied) continue;
    const end = text.indexOf('endobj', start);
    const keyword = text.indexOf('stream', start);
    if (keyword < 0 || (end >= 0 && keyword > end) || !/\/Type\s*\/ObjStm\b/.test(text.slice(start, keyword))) continue;
    const dataStart = keyword + 6 + (text.startsWith('\r\n', keyword + 6) ? 2 : text[keyword + 6] === '\n' ? 1 : 0);
    const endstream = text.indexOf('endstream', dataStart);
    if (endstream < 0) continue;
    const length = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(text.slice(start, keyword));
    const dataEnd = length && dataStart + Number(length[1]) <= endstream ? dataStart + Number(length[1]) : endstream;
    const ref = PDFRef.of(Number(match[1]), Number(match[2]));
    const data = decryptBytes(opened.streams, objectKey(opened.key, opened.streams, ref), pdf.subarray(dataStart, dataEnd));
    chunks.push(pdf.subarray(copied, dataStart), data);
    copied = dataEnd;
    for (const number of objectNumbers(text.slice(start, keyword), data)) objects.add(number);
  }
  chunks.push(pdf.subarray(copied));
  return { bytes: Buffer.concat(chunks), objects };
}

/** The numbers of the objects a decrypted object stream holds (its header: pairs of number and offset). */
function objectNumbers(dict: string, data: Uint8Array): number[] {
  const filter = /\/Filter\s*\[?\s*\/(\w+)\s*\]?/.exec(dict)?.[1];
  let decoded: Buffer;
  if (filter === undefined) decoded = Buffer.from(data);
  else if (filter === 'FlateDecode') decoded = inflateSync(data, { finishFlush: zlibConstants.Z_SYNC_FLUSH });
  else return [];
  const count = Number(/\/N\s+(\d+)/.exec(dict)?.[1] ?? 0);
  const header = decoded.subarray(0, Number(/\/First\s+(\d+)/.exec(dict)?.[1] ?? decoded.length)).toString('latin1');
  return (header.match(/\d+/g) ?? []).slice(0, count * 2).filter((_, i) => i % 2 === 0).map(Number);
}
