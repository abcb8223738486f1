/**
 * fast-check arbitraries for FileMetaData (`paraph/testing`, docs/design/files.md#filemetadata,
 * docs/design/locations.md): `location`, `fileMetaData` produce only values `validateFileMetaData` accepts, built from
 * records and arrays so they shrink field by field; `invalidFileMetaData` breaks exactly one rule of a valid value and
 * carries the message the validator gives for it. With a page size (and search texts drawn away from the page edges)
 * every field also fits its page.
 */
import type { Arbitrary } from 'fast-check';
import { fc, once } from './fast-check.js';
import { FIELD_TYPES, type FieldSpec, type FieldType, type FileMetaData, type LocalisedText, type Location } from '../pdf/file-metadata.js';

/** Options of {@link location}. */
export interface LocationArbitraryOptions {
  /** true: every Location searches; false: none does (PageNumber instead); absent: both kinds. */
  withSearch?: boolean;
  /** The texts a searching Location looks for (default `{{Signer1}}` … `{{Signer3}}`). */
  searchTexts?: readonly string[];
  /** Highest `Occurence` to send with a Search (default 1; 0 never sends one). */
  maxOccurence?: number;
  /** Pages of the document: PageNumber is 1 … pages (default 1). */
  pages?: number;
  /** Page size as the reader sees it; PageNumber locations keep the field inside it (default A4, 595 × 842). */
  pageSize?: { readonly width: number; readonly height: number };
  /** Largest distance a searching Location puts its field from the matched text, in points (default 100). */
  maxOffset?: number;
  /** Largest Width/Height sent, in points (default 200; at least 1). */
  maxSize?: number;
}

/**
 * The largest default size of any field type (SingleLine 150 wide, Signature/Seal 70 high,
 * docs/design/fields.md#field-types).
 */
const DEFAULT_WIDTH = 150;
const DEFAULT_HEIGHT = 70;
const DEFAULT_SEARCH_TEXTS = ['{{Signer1}}', '{{Signer2}}', '{{Signer3}}'];

type Axis = { readonly start: 'Left' | 'Top'; readonly end: 'Right' | 'Bottom'; readonly size: 'Width' | 'Height' };
const HORIZONTAL: Axis = { start: 'Left', end: 'Right', size: 'Width' };
const VERTICAL: Axis = { start: 'Top', end: 'Bottom', size: 'Height' };

/**
 * One axis of a Location on the page (no Search): each legal combination of start/end/size
 * (docs/design/locations.md#search), with values that keep the field between 0 and `extent` whatever the field type's
 * default size.
 */
function pageAxis(axis: Axis, extent: number, maxSize: number, defaultSize: number): Arbitrary<Partial<Location>> {
  const size = fc.integer({ min: 1, max: Math.max(1, Math.min(maxSize, Math.floor(extent))) });
  const room = (taken: number): Arbitrary<number> => fc.integer({ min: 0, max: Math.max(0, Math.floor(extent - taken)) });
  const half = Math.max(0, Math.floor(extent / 2) - 1);
  return fc.oneof(
    fc.constant({}),
    room(defaultSize).map((start) => ({ [axis.start]: start })),
    room(defaultSize).map((end) => ({ [axis.end]: end })),
    size.chain((s) => room(s).map((start) => ({ [axis.start]: start, [axis.size]: s }))),
    size.chain((s) => room(s).map((end) => ({ [axis.end]: end, [axis.size]: s }))),
    fc.tuple(fc.integer({ min: 0, max: half }), fc.integer({ min: 0, max: half })).map(([start, end]) => ({ [axis.start]: start, [axis.end]: end })),
  );
}

/** One axis of a Location relative to matched text: offsets within ±maxOffset, start+end never leave an empty box. */
function searchAxis(axis: Axis, maxOffset: number, maxSize: number): Arbitrary<Partial<Location>> {
  const offset = fc.integer({ min: -maxOffset, max: maxOffset });
  const size = fc.integer({ min: 1, max: Math.max(1, maxSize) });
  const outward = fc.integer({ min: -maxOffset, max: 0 });
  return fc.oneof(
    fc.constant({}),
    offset.map((start) => ({ [axis.start]: start })),
    fc.tuple(offset, size).map(([start, s]) => ({ [axis.start]: start, [axis.size]: s })),
    fc.tuple(offset, size).map(([end, s]) => ({ [axis.end]: end, [axis.size]: s })),
    // Both edges: only outwards (≤ 0), so the box is at least as large as the text.
    fc.tuple(outward, outward).map(([start, end]) => ({ [axis.start]: start, [axis.end]: end })),
  );
}

/**
 * A valid Location. Without Search it always has a PageNumber and stays inside `pageSize`; with Search it names one of
 * `searchTexts`, optionally an `Occurence`, and sits within `maxOffset` of the text.
 *
 * @example
 * fc.assert(fc.property(location({ withSearch: true }), (loc) => loc.Search !== undefined));
 */
export function location(options: LocationArbitraryOptions = {}): Arbitrary<Location> {
  const pages = Math.max(1, options.pages ?? 1);
  const page = options.pageSize ?? { width: 595, height: 842 };
  const maxSize = Math.max(1, options.maxSize ?? 200);
  const maxOffset = Math.max(0, options.maxOffset ?? 100);
  const texts = options.searchTexts && options.searchTexts.length > 0 ? options.searchTexts : DEFAULT_SEARCH_TEXTS;
  const maxOccurence = Math.max(0, options.maxOccurence ?? 1);
  const onPage = fc
    .record({
      page: fc.integer({ min: 1, max: pages }),
      h: pageAxis(HORIZONTAL, page.width, maxSize, DEFAULT_WIDTH),
      v: pageAxis(VERTICAL, page.height, maxSize, DEFAULT_HEIGHT),
    })
    .map(({ page: p, h, v }): Location => ({ ...h, ...v, PageNumber: p }));
  const occurence = maxOccurence === 0 ? fc.constant(undefined) : fc.option(fc.integer({ min: 1, max: maxOccurence }), { nil: undefined });
  const searching = fc
    .record({
      text: fc.constantFrom(...texts),
      occurence,
      h: searchAxis(HORIZONTAL, maxOffset, maxSize),
      v: searchAxis(VERTICAL, maxOffset, maxSize),
    })
    .map(({ text, occurence: occ, h, v }): Location => ({ Search: text, ...(occ === undefined ? {} : { Occurence: occ }), ...h, ...v }));
  if (options.withSearch === true) return searching;
  if (options.withSearch === false) return onPage;
  return fc.oneof(searching, onPage);
}

/** Options of {@link fileMetaData}. */
export interface FileMetaDataArbitraryOptions {
  /** How the Locations are drawn. */
  location?: LocationArbitraryOptions;
  /** Field types to use (default all of FIELD_TYPES). */
  fieldTypes?: readonly FieldType[];
  /** Formsets per document (default 1 … 3). */
  formSets?: { readonly min?: number; readonly max?: number };
  /** Fields per formset (default 1 … 4). */
  fieldsPerFormSet?: { readonly min?: number; readonly max?: number };
}

const KEY = (): Arbitrary<string> => fc.stringMatching(/^[A-Za-z0-9_]{1,12}$/);
const SIGNER_ID = (): Arbitrary<string> => fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/);
/** Printable characters DejaVu Sans draws (field appearances), a few of them outside ASCII. */
const PRINTABLE = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;-_/()&@#€éüßñ'];

/** Text of printable characters only, up to `maxLength` characters. */
export function printableText(maxLength: number, minLength = 0): Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...PRINTABLE), minLength, maxLength });
}

const isoDate = (): Arbitrary<string> =>
  fc
  .record({ y: fc.integer({ min: 1900, max: 2100 }), m: fc.integer({ min: 1, max: 12 }), d: fc.integer({ min: 1, max: 28 }) })
  .map(({ y, m, d }) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);
const numberText = (): Arbitrary<string> =>
  fc
  .record({ sign: fc.constantFrom('', '-', '+'), whole: fc.nat({ max: 1_000_000 }), sep: fc.constantFrom('', '.', ','), frac: fc.nat({ max: 999 }) })
  .map(({ sign, whole, sep, frac }) => `${sign}${whole}${sep === '' ? '' : `${sep}${frac}`}`);

/** A value a field of `type` accepts (none for Signature and Seal). */
function fieldValue(type: FieldType): Arbitrary<string | undefined> {
  switch (type) {
    case 'Signature':
    case 'Seal':
      return fc.constant(undefined);
    case 'Check':
      return fc.option(printableText(40, 1).filter((v) => v !== 'Off'), { nil: undefined });
    case 'Radio':
      // Without a Value a button exports its (unique) key, so a formset's radio group stays valid.
      return fc.constant(undefined);
    case 'SingleLine':
      return fc.option(printableText(60), { nil: undefined });
    case 'Date':
      return fc.option(isoDate(), { nil: undefined });
    case 'Number':
      return fc.option(numberText(), { nil: undefined });
  }
}

const LANGUAGE_TAGS = ['nl', 'nl-NL', 'en', 'en-US', 'de', 'de-AT', 'fr-FR', 'pl'];

/** A valid Label or Tooltip: one text, or texts for 1–3 languages of distinct tags. */
export function localisedText(maxLength: number): Arbitrary<LocalisedText> {
  const text = printableText(maxLength, 1).filter((t) => t.trim() !== '');
  return fc.oneof(
    text,
    fc
      .uniqueArray(fc.tuple(fc.constantFrom(...LANGUAGE_TAGS), text), { minLength: 1, maxLength: 3, selector: ([tag]) => tag.toLowerCase() })
      .map((entries) => Object.fromEntries(entries)),
  );
}

/** A valid field (type, value that fits the type, Location, sometimes a Label and a Tooltip). */
export function fieldSpec(options: FileMetaDataArbitraryOptions = {}): Arbitrary<FieldSpec> {
  const types = options.fieldTypes && options.fieldTypes.length > 0 ? options.fieldTypes : FIELD_TYPES;
  return fc
    .constantFrom(...types)
    .chain((type) =>
      fc.record({
        Type: fc.constant(type),
        value: fieldValue(type),
        Location: location(options.location),
        label: fc.option(localisedText(40), { nil: undefined }),
        tooltip: fc.option(localisedText(80), { nil: undefined }),
      }),
    )
    .map(({ Type, value, Location: loc, label, tooltip }): FieldSpec => ({
      Type,
      ...(value !== undefined ? { Value: value } : {}),
      Location: loc,
      ...(label !== undefined ? { Label: label } : {}),
      ...(tooltip !== undefined ? { Tooltip: tooltip } : {}),
    }));
}

/**
 * Valid FileMetaData: optional DisplayName, DisplayOrder, Description and SetParaph, 1–3 formsets of 1–4 fields with
 * unique keys, and Signers that name existing formsets (each at most once).
 *
 * @example
 * fc.assert(fc.property(fileMetaData(), (metadata) => { validateFileMetaData(metadata); }));
 */
export function fileMetaData(options: FileMetaDataArbitraryOptions = {}): Arbitrary<FileMetaData> {
  const fields = fc.uniqueArray(fc.tuple(KEY(), fieldSpec(options)), {
    minLength: options.fieldsPerFormSet?.min ?? 1,
    maxLength: options.fieldsPerFormSet?.max ?? 4,
    selector: ([key]) => key,
  });
  const formSets = fc.uniqueArray(fc.tuple(KEY(), fields), {
    minLength: options.formSets?.min ?? 1,
    maxLength: options.formSets?.max ?? 3,
    selector: ([key]) => key,
  });
  // Signers pick formsets by index, so shrinking the formsets keeps every reference valid.
  const signers = fc.uniqueArray(fc.tuple(SIGNER_ID(), fc.uniqueArray(fc.nat(), { maxLength: 3 })), { maxLength: 3, selector: ([id]) => id });
  return fc
    .record(
      {
        DisplayName: printableText(40),
        DisplayOrder: fc.integer({ min: -1000, max: 1000 }),
        Description: printableText(80),
        SetParaph: fc.boolean(),
        formSets,
        signers,
      },
      { requiredKeys: ['formSets'] },
    )
    .map(({ formSets: sets, signers: signerList, ...rest }): FileMetaData => {
      const out: FileMetaData = { ...rest, FormSets: Object.fromEntries(sets.map(([key, list]) => [key, Object.fromEntries(list)])) };
      if (signerList !== undefined) {
        const keys = sets.map(([key]) => key);
        out.Signers = Object.fromEntries(
          signerList.map(([id, picks]) => [id, { FormSets: [...new Set(picks.map((i) => keys[i % keys.length] as string))] }]),
        );
      }
      return out;
    });
}

/** A FileMetaData-shaped JSON value that breaks one rule, and the validator's message for it. */
export interface InvalidFileMetaData {
  /** The JSON value (as `JSON.parse` would give it). */
  readonly value: unknown;
  /** The one issue `validateFileMetaData` reports (`ValidationError.issues` is exactly `[message]`). */
  readonly message: string;
}

const ROOT_PROPS = 'DisplayName, DisplayOrder, Description, SetParaph, Signers, FormSets';
const TYPES = FIELD_TYPES.join(', ');

type Mutation = (metadata: FileMetaData, path: string, fieldKey: [string, string]) => InvalidFileMetaData;

/** Mutations of a valid value, each breaking exactly one rule; `path` is the first field's JSON path. */
const mutations = once((): readonly Arbitrary<Mutation>[] => [
  fc.stringMatching(/^X[a-z]{0,8}$/).map((key): Mutation => (m) => ({ value: { ...m, [key]: 1 }, message: `${key}: unknown property (allowed: ${ROOT_PROPS})` })),
  fc.constant<Mutation>((m) => ({ value: { ...m, displayname: 'x' }, message: 'displayname: unknown property (did you mean DisplayName?)' })),
  fc.constantFrom(
    ['DisplayName', 'must be a string'],
    ['DisplayOrder', 'must be a number'],
    ['Description', 'must be a string'],
    ['SetParaph', 'must be true or false'],
  ).map(([key, rule]): Mutation => (m) => ({ value: { ...m, [key]: [] }, message: `${key}: ${rule} (got an array)` })),
  fc.integer({ min: -100, max: 100 }).map((n): Mutation => (m) => ({ value: { ...m, DisplayOrder: n + 0.5 }, message: `DisplayOrder: must be an integer (got ${n + 0.5})` })),
  fc.constant<Mutation>((m, path, key) => ({ value: withField(m, key, (f) => ({ ...f, Location: { Left: 10 } })), message: `${path}.Location: PageNumber is required when there is no Search` })),
  fc.integer({ min: -100, max: 0 }).map((w): Mutation => (m, path, key) => ({ value: withField(m, key, (f) => ({ ...f, Location: { PageNumber: 1, Width: w } })), message: `${path}.Location.Width: must be greater than 0 (got ${w})` })),
  fc.integer({ min: -5, max: 0 }).map((p): Mutation => (m, path, key) => ({ value: withField(m, key, (f) => ({ ...f, Location: { PageNumber: p } })), message: `${path}.Location.PageNumber: must be an integer of at least 1 (got ${p})` })),
  fc.constant<Mutation>((m, path, key) => ({ value: withField(m, key, (f) => ({ ...f, Location: { PageNumber: 1, Occurence: 1 } })), message: `${path}.Location: Occurence can only be used with Search` })),
  fc.constant<Mutation>((m, path, key) => ({ value: withField(m, key, (f) => ({ ...f, Location: { Search: '   ' } })), message: `${path}.Location.Search: must contain text other than white space` })),
  fc.stringMatching(/^[a-z]{1,8}$/).map((t): Mutation => (m, path, key) => ({ value: withField(m, key, (f) => ({ ...f, Type: t })), message: `${path}.Type: must be one of ${TYPES} (got the string ${JSON.stringify(t)})` })),
  fc.constantFrom<FieldType>('Signature', 'Seal').map((type): Mutation => (m, path, key) => ({ value: withField(m, key, (f) => ({ Type: type, Value: 'x', Location: f.Location })), message: `${path}.Value: is not allowed on a ${type} field` })),
  fc.constant<Mutation>((m, path, key) => ({ value: withField(m, key, (f) => ({ Type: 'Date', Value: '2023-02-29', Location: f.Location })), message: `${path}.Value: must be a date written YYYY-MM-DD (got "2023-02-29")` })),
  fc.constant<Mutation>((m, path, key) => ({ value: withField(m, key, (f) => ({ Type: 'Check', Value: 'Off', Location: f.Location })), message: `${path}.Value: "Off" is reserved for the unchecked state; choose another export value` })),
  fc.constant<Mutation>((m, path, key) => ({ value: withField(m, key, ({ Location: _dropped, ...f }) => f), message: `${path}.Location: is required` })),
  fc.constantFrom('\u0007', '\n', '\u202e', '\u2028').map((c): Mutation => (m, path, key) => ({ value: withField(m, key, (f) => ({ ...f, Label: `Place${c}` })), message: `${path}.Label: must be one line without control or bidirectional formatting characters` })),
  fc.integer({ min: 1001, max: 1200 }).map((n): Mutation => (m, path, key) => ({ value: withField(m, key, (f) => ({ ...f, Tooltip: 'x'.repeat(n) })), message: `${path}.Tooltip: must be at most 1000 characters (got ${n})` })),
  fc.constant<Mutation>((m, path, key) => ({ value: withField(m, key, (f) => ({ ...f, Label: { nl: 'Plaats', NL: 'Plaats' } })), message: `${path}.Label.NL: the language is given twice (tags are compared without regard to case)` })),
  fc.constant<Mutation>((m, path, key) => ({ value: withField(m, key, (f) => ({ ...f, Tooltip: { 'not a tag': 'x' } })), message: `${path}.Tooltip: "not a tag" is not a language tag such as "nl", "de-AT" or "en-US"` })),
  fc.constant<Mutation>((m) => ({ value: { ...m, FormSets: { ...m.FormSets, 'bad-key': {} } }, message: 'FormSets: formset key "bad-key" must be 1 to 255 characters of A-Z, a-z, 0-9 and _' })),
  fc.constant<Mutation>((m) => ({ value: { ...m, Signers: { ...m.Signers, zz_signer: { FormSets: ['no-such-formset'] } } }, message: 'Signers.zz_signer.FormSets[0]: "no-such-formset" does not name a key of FormSets' })),
  fc.constant<Mutation>((m) => ({ value: { ...m, Signers: { ...m.Signers, 'bad id!': { FormSets: [] } } }, message: 'Signers: signer id "bad id!" must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -' })),
]);

function withField(m: FileMetaData, [setKey, fieldKey]: [string, string], change: (field: FieldSpec) => Record<string, unknown>): unknown {
  const set = m.FormSets?.[setKey] ?? {};
  const field = set[fieldKey] as FieldSpec;
  return { ...m, FormSets: { ...m.FormSets, [setKey]: { ...set, [fieldKey]: change(field) } } };
}

/**
 * JSON values that break exactly one FileMetaData rule, each with the exact message `validateFileMetaData` (and the
 * service's 400 answer) gives: a valid {@link fileMetaData} value with one mutation (unknown property or one of the wrong type, bad
 * DisplayOrder, Location rules, field type and value rules, bad keys, Signers naming unknown formsets).
 *
 * @example
 * fc.assert(fc.property(invalidFileMetaData(), ({ value, message }) => {
 *   expect(() => validateFileMetaData(value)).toThrow(message);
 * }));
 */
export function invalidFileMetaData(options: FileMetaDataArbitraryOptions = {}): Arbitrary<InvalidFileMetaData> {
  // Signer ids of the valid part are [A-Za-z0-9_-], so `zz_signer` may collide only by being overwritten: same message.
  return fc.tuple(fileMetaData(options), fc.oneof(...mutations())).map(([metadata, mutate]) => {
    const [setKey, set] = Object.entries(metadata.FormSets ?? {})[0] as [string, Record<string, FieldSpec>];
    const fieldKey = Object.keys(set)[0] as string;
    return mutate(metadata, `FormSets.${setKey}.${fieldKey}`, [setKey, fieldKey]);
  });
}
