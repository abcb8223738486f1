/**
 * `paraph place <in.pdf> <metadata.json> -o <out.pdf> [--json]`: places the fields a FileMetaData JSON
 * describes (docs/design/locations.md) and writes the PDF atomically (temporary file, then rename), so a failure never
 * leaves a half-written output. `--json` prints every widget in reader coordinates.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ParaphError } from '../errors.js';
import { readPdfToUpdate, writeAtomically } from './cli-files.js';
import { UsageError, type CliCommand } from './common.js';

const USAGE = `usage: paraph place <in.pdf> <metadata.json> -o <out.pdf> [--json] [--engine pdfium|pdfjs]

Places the fields of a FileMetaData JSON (Signature, Seal, Check, SingleLine, Date, Number) on a PDF
as AcroForm fields, in one incremental update.

  -o, --output <file>  where to write the PDF with the fields (required)
      --json           print every widget as JSON: field, type, page, left, top, width, height
                       (points, from the page's top-left corner as a reader sees it)
      --engine <name>  text engine for Search locations: pdfium (default) or pdfjs
  -h, --help           show this help
`;

/**
 * Up to this size, text is extracted in the CLI's own thread (~50 pages of dense text; judged by size, as counting the
 * pages would parse the document once more: ~150 ms for a 350-page book).
 */
export const SMALL_DOCUMENT_BYTES = 128 * 1024;

/** One widget as `--json` prints it. */
export interface PlaceJsonEntry {
  field: string;
  type: string;
  page: number;
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The `place` command. Exit 0 on success, 2 for bad input or usage, 1 for an internal error. */
export const placeCommand: CliCommand = async (args, io) => {
  const { values, positionals } = parseArgs({
    args,
    options: {
      output: { type: 'string', short: 'o' },
      json: { type: 'boolean', default: false },
      engine: { type: 'string', default: 'pdfium' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (positionals.length !== 2) {
    throw new UsageError(`paraph place needs an input PDF and a metadata JSON file (got ${positionals.length} file arguments)\n\n${USAGE}`);
  }
  const output = values.output;
  if (!output) throw new UsageError(`paraph place needs -o <out.pdf>\n\n${USAGE}`);
  const [pdfPath, metadataPath] = positionals as [string, string];
  // Loaded once the arguments are known to be usable: pdf-lib and the text index take ~200 ms to load, which
  // `--help` and usage errors need not wait for.
  const [{ parseFileMetaData }, { placeFieldsFromMetadata }, { TEXT_ENGINES }] = await Promise.all([
    import('../pdf/file-metadata.js'),
    import('../pdf/place-fields-from-metadata.js'),
    import('../pdf/text-index/text-index.js'),
  ]);
  const engine = TEXT_ENGINES.find((e) => e === values.engine);
  if (!engine) throw new UsageError(`paraph place: --engine must be one of ${TEXT_ENGINES.join(', ')} (got "${values.engine}")\n\n${USAGE}`);

  const pdf = await readPdfToUpdate(pdfPath, io, await readInput(pdfPath, 'PDF'));
  const metadata = parseFileMetaData(await readInput(metadataPath, 'metadata JSON'));
  // A CLI run is its own process, so the text engine may run in this thread: for small documents that saves the
  // start-up of worker threads; large ones still spread over the cores.
  const inThread = pdf.length <= SMALL_DOCUMENT_BYTES;
  const { bytes, placements } = await placeFieldsFromMetadata(pdf, metadata, inThread ? { workers: 0, engine } : { engine });
  await writeAtomically(output, bytes);

  if (values.json) {
    const entries: PlaceJsonEntry[] = placements.map((p) => ({
      field: p.field,
      type: p.type,
      page: p.pageNumber,
      left: round(p.left),
      top: round(p.top),
      width: round(p.width),
      height: round(p.height),
    }));
    io.stdout(`${JSON.stringify(entries)}\n`);
  } else {
    const fields = new Set(placements.map((p) => p.field)).size;
    io.stdout(`placed ${fields} field${fields === 1 ? '' : 's'} (${placements.length} widget${placements.length === 1 ? '' : 's'}) in ${output}\n`);
  }
  return 0;
};

async function readInput(path: string, what: string): Promise<Uint8Array> {
  try {
    const buffer = await readFile(path);
    return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? String(error));
    throw new ParaphError('FILE_UNREADABLE', `Cannot read the ${what} "${path}": ${reason}.`, { cause: error });
  }
}


function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
