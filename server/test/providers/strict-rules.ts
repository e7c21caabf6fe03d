/**
 * OpenAI's rules for `json_schema` with `strict: true` (Structured Outputs, "Supported schemas"),
 * written down independently of the code that prepares schemas: the root is an object; every
 * node says its type (or is an anyOf / $ref); every object lists all its properties as required
 * and sets additionalProperties false; keywords strict mode does not support are absent.
 */
const UNSUPPORTED = [
  'minLength', 'maxLength', 'patternProperties', 'unevaluatedProperties', 'propertyNames', 'minProperties', 'maxProperties',
  'unevaluatedItems', 'contains', 'minContains', 'maxContains', 'uniqueItems', 'allOf', 'not', 'if', 'then', 'else',
  'dependentRequired', 'dependentSchemas', 'default', 'examples',
];

export function strictViolations(schema: unknown, path = '#'): string[] {
  if (typeof schema !== 'object' || schema === null) return [`${path}: not a schema object`];
  const node = schema as Record<string, unknown>;
  const out: string[] = [];
  if (path === '#' && node.type !== 'object') out.push('#: the root must be an object');
  for (const key of UNSUPPORTED) if (key in node) out.push(`${path}: unsupported keyword ${key}`);
  if (node.type === undefined && !Array.isArray(node.anyOf) && typeof node.$ref !== 'string') out.push(`${path}: no type`);
  if (node.type === 'object' || node.properties) {
    const properties = (node.properties ?? {}) as Record<string, unknown>;
    if (node.additionalProperties !== false) out.push(`${path}: additionalProperties must be false`);
    const required = new Set((node.required as string[] | undefined) ?? []);
    for (const name of Object.keys(properties)) if (!required.has(name)) out.push(`${path}/${name}: not required`);
    for (const [name, sub] of Object.entries(properties)) out.push(...strictViolations(sub, `${path}/properties/${name}`));
  }
  if (node.items !== undefined) out.push(...strictViolations(node.items, `${path}/items`));
  if (Array.isArray(node.anyOf)) node.anyOf.forEach((sub, i) => out.push(...strictViolations(sub, `${path}/anyOf/${i}`)));
  for (const [name, sub] of Object.entries((node.$defs ?? {}) as Record<string, unknown>)) out.push(...strictViolations(sub, `${path}/$defs/${name}`));
  return out;
}
