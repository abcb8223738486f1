/**
 * fast-check arbitraries of the values a JSON Schema (as the OpenAPI document states it) accepts: enough of 2020-12
 * for paraph's request schemas ($ref into the document, objects, records, arrays, oneOf/anyOf, enums, consts,
 * string formats and lengths, integer ranges). Depth is bounded so recursive shapes stay small.
 */
import fc from 'fast-check';

type Schema = { readonly [key: string]: unknown };

const FORMATS: Readonly<Record<string, fc.Arbitrary<string>>> = {
  email: fc.emailAddress().filter((e) => e.length <= 320),
  uri: fc.webUrl().filter((u) => u.length <= 2048),
  'date-time': fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
  uuid: fc.uuid(),
};

/** Values `schema` accepts; `$ref`s are looked up in `document`. */
export function schemaArbitrary(schema: Schema, document: Schema, depth = 4): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((node, key) => (node as Schema | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
    return schemaArbitrary(target as Schema, document, depth);
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const choices = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (choices) return fc.oneof(...choices.map((choice) => schemaArbitrary({ ...withoutComposition(schema), ...choice }, document, depth)));
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  return fc.oneof(...types.map((type) => typed(type, schema, document, depth)));
}

function withoutComposition(schema: Schema): Schema {
  const { oneOf: _o, anyOf: _a, discriminator: _d, ...rest } = schema;
  return rest;
}

function typed(type: string | undefined, schema: Schema, document: Schema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: (schema.minimum as number | undefined) ?? -1000, max: (schema.maximum as number | undefined) ?? 1000 });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
    case 'string': {
      const format = FORMATS[schema.format as string];
      if (format) return format;
      return fc.string({ minLength: (schema.minLength as number | undefined) ?? 0, maxLength: Math.min((schema.maxLength as number | undefined) ?? 40, 40) });
    }
    case 'array': {
      if (depth <= 0) return fc.constant([]);
      const items = (schema.items as Schema | undefined) ?? {};
      return fc.array(schemaArbitrary(items, document, depth - 1), { maxLength: Math.min((schema.maxItems as number | undefined) ?? 3, 3) });
    }
    case 'object':
    case undefined:
      return objectArbitrary(schema, document, depth);
    default:
      return fc.constant(null);
  }
}

function objectArbitrary(schema: Schema, document: Schema, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const values = typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as Schema) : (schema.patternProperties ? (Object.values(schema.patternProperties as Schema)[0] as Schema) : undefined);
  if (Object.keys(properties).length === 0 && values === undefined) return depth <= 0 ? fc.constant({}) : fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 });
  if (depth <= 0 && required.size === 0) return fc.constant({});
  const record = fc.record(
    Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, schemaArbitrary(value, document, depth - 1)])),
    { requiredKeys: [...required].filter((key) => key in properties) },
  );
  if (values === undefined || depth <= 0) return record;
  return fc.tuple(record, fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), schemaArbitrary(values, document, depth - 1), { maxKeys: 2 })).map(([a, b]) => ({ ...b, ...a }));
}
