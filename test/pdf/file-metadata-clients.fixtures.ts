/**
 * FileMetaData exactly as the public Signhost clients serialise it (data written for paraph's tests, not their code):
 * - `DOTNET_V5_COMPLEX_METADATA`: the .NET client v5 (Evidos/SignhostClientLibrary, IntegrationTests
 *   `Given_complex_file_metadata_When_added_to_transaction_Then_all_properties_are_accepted`) through System.Text.Json
 *   with `WhenWritingNull`, `JsonStringEnumConverter` and declaration order (FileMeta: DisplayOrder, DisplayName,
 *   Description, Signers, FormSets, SetParaph; Field: Type, Value, Location; Location: Search, Occurence, Top, Right,
 *   Bottom, Left, Width, Height, PageNumber), compact, as sent in the PUT body.
 * - `PYTHON_METADATA`: the `signhost` Python client (pydantic `model_dump_json()`), which writes every unset property
 *   as `null`.
 */

/** The .NET v5 integration test's "complex" FileMeta, byte for byte. */
export const DOTNET_V5_COMPLEX_METADATA =
  '{"DisplayOrder":1,"DisplayName":"Complex Test Document","Description":"This is a test document with complex metadata",' +
  '"Signers":{"signer1":{"FormSets":["FormSet1","FormSet2"]},"signer2":{"FormSets":["FormSet2","FormSet3"]}},' +
  '"FormSets":{' +
  '"FormSet1":{' +
  '"SealField":{"Type":"Seal","Location":{"Search":"seal_placeholder","Occurence":1,"PageNumber":1}},' +
  '"SignatureField":{"Type":"Signature","Location":{"Top":100,"Left":50,"Width":200,"Height":60,"PageNumber":1}},' +
  '"CheckField":{"Type":"Check","Value":"I agree to the terms","Location":{"Search":"checkbox_location","Occurence":1}}},' +
  '"FormSet2":{' +
  '"RadioFieldString":{"Type":"Radio","Value":"Option A","Location":{"Top":200,"Right":300,"Bottom":220,"Left":100,"PageNumber":2}},' +
  '"SingleLineFieldString":{"Type":"SingleLine","Value":"John Doe","Location":{"Search":"name_field","Width":150,"Height":20}},' +
  '"NumberFieldInteger":{"Type":"Number","Value":42,"Location":{"Top":300,"Left":50,"PageNumber":2}},' +
  '"NumberFieldDecimal":{"Type":"Number","Value":123.45,"Location":{"Top":320,"Left":50,"Width":100,"Height":20,"PageNumber":2}},' +
  '"DateField":{"Type":"Date","Value":"2025-11-28","Location":{"Search":"date_placeholder","Occurence":2,"PageNumber":3}}},' +
  '"FormSet3":{' +
  '"CheckFieldTrue":{"Type":"Check","Value":true,"Location":{"Top":400,"Right":200,"Bottom":420,"Left":50,"PageNumber":3}},' +
  '"CheckFieldFalse":{"Type":"Check","Value":false,"Location":{"Top":450,"Right":200,"Bottom":470,"Left":50,"Width":150,"Height":20,"PageNumber":3}},' +
  '"SingleLineFieldNull":{"Type":"SingleLine","Location":{"Search":"optional_field","Occurence":1,"Top":500,"Left":50,"Width":200,"Height":25,"PageNumber":4}},' +
  '"RadioFieldNumber":{"Type":"Radio","Value":1,"Location":{"Top":550,"Left":50,"PageNumber":4}}}},' +
  '"SetParaph":true}';

/**
 * The texts the .NET fixture searches for, per page, so that a PDF made with them resolves every Location
 * (`date_placeholder` twice on page 3: the fixture asks for its second occurrence there).
 */
export const DOTNET_V5_COMPLEX_PAGES: readonly (readonly string[])[] = [
  ['Contract with seal_placeholder', 'Please tick checkbox_location', 'Your name_field here'],
  ['Page two: choose an option'],
  ['First date_placeholder', 'Second date_placeholder'],
  ['Page four: optional_field'],
];

/**
 * The Python client's `FileMetaData` model (`signhost.models.generated`, fields DisplayOrder, DisplayName, SetParaph,
 * Signers, FormSets; a field has Type, Location, Link; every Location property optional) through pydantic's
 * `model_dump_json()`: every unset property is written as `null`, in declaration order, compactly. (The client has
 * no method that uploads it; this is what its model serialises to.)
 */
export const PYTHON_METADATA =
  '{"DisplayOrder":null,"DisplayName":"Contract","SetParaph":null,' +
  '"Signers":{"Signer1":{"FormSets":["sig"]}},' +
  '"FormSets":{"sig":{"Signature1":{"Type":"Signature","Location":{"Search":"{{Signer1}}","Occurence":null,"Top":null,' +
  '"Right":null,"Bottom":null,"Left":null,"Width":140,"Height":70,"PageNumber":null},"Link":null}}}}';

/** The same model asking for the PDF's own fields (fillable PDF): `FormSets` names the fileId, the map is null. */
export const PYTHON_FILLABLE_METADATA =
  '{"DisplayOrder":null,"DisplayName":"Contract","SetParaph":null,"Signers":{"Signer1":{"FormSets":["Contract.pdf"]}},"FormSets":null}';

/** Signhost's documentation example of a fillable PDF (approach 1): the signer's FormSets name the fileId. */
export const FILLABLE_METADATA = '{"Signers":{"Signer1":{"FormSets":["Contract.pdf"]}}}';
