/**
 * A one-page PDF whose object stream holds a great many tiny objects nothing refers to: cheap to write and to ship
 * (a few MB), costly for a parser that builds every object it finds. Generated on the fly, never committed.
 */
import { deflateSync } from 'node:zlib';

export interface ManyObjectsOptions {
  /** Objects in each object stream (its /N). */
  readonly perStream: number;
  /** Object streams (default 1). */
  readonly streams?: number;
  /** The trailer's /Size; default the true count of objects. */
  readonly declaredSize?: number;
  /** Write /N as this instead of the true count (a lying header). */
  readonly declaredN?: number;
  /** Arrays nested this deep around each tiny object (default 0: the object is `0`). */
  readonly nesting?: number;
}

/** The PDF bytes; objects 1–5 are the page and its font, 6… the object streams, the rest live inside them. */
export function manyObjectsPdf(options: ManyObjectsOptions): Uint8Array {
  const streams = options.streams ?? 1;
  const nesting = options.nesting ?? 0;
  const value = '['.repeat(nesting) + '0' + ']'.repeat(nesting);
  const content = 'BT /F1 24 Tf 72 700 Td (Many objects) Tj ET';
  const parts: (string | Buffer)[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (part: string | Buffer): void => {
    parts.push(part);
    length += typeof part === 'string' ? Buffer.byteLength(part, 'latin1') : part.length;
  };
  const object = (num: number, body: string | Buffer[]): void => {
    offsets[num] = length;
    if (typeof body === 'string') push(`${num} 0 obj\n${body}\nendobj\n`);
    else {
      push(`${num} 0 obj\n`);
      for (const b of body) push(b);
      push('\nendobj\n');
    }
  };
  push('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  object(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  object(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>');
  object(4, `<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
  object(5, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  let next = 6 + streams;
  for (let s = 0; s < streams; s++) {
    const header: string[] = [];
    const bodies: string[] = [];
    let offset = 0;
    for (let i = 0; i < options.perStream; i++) {
      header.push(`${next++} ${offset}`);
      bodies.push(value);
      offset += value.length + 1;
    }
    const head = header.join(' ') + '\n';
    const data = deflateSync(Buffer.from(head + bodies.join(' ') + ' ', 'latin1'), { level: 6 });
    const n = options.declaredN ?? options.perStream;
    object(6 + s, [Buffer.from(`<< /Type /ObjStm /N ${n} /First ${head.length} /Filter /FlateDecode /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
  }
  const count = 6 + streams;
  const xref = length;
  const rows = ['0000000000 65535 f \n'];
  for (let i = 1; i < count; i++) rows.push(`${String(offsets[i]).padStart(10, '0')} 00000 n \n`);
  push(`xref\n0 ${count}\n${rows.join('')}trailer\n<< /Size ${options.declaredSize ?? next} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : p))));
}
