import { Compile } from 'typebox/compile';
import type { JsonSchemaSpec } from './types.js';

type Validator = ReturnType<typeof Compile>;
const compiled = new WeakMap<object, Validator>();

function validatorFor(schema: Record<string, unknown>): Validator {
  let validator = compiled.get(schema);
  if (!validator) {
    validator = Compile(schema as never);
    compiled.set(schema, validator);
  }
  return validator;
}

export type Checked = { ok: true; value: unknown } | { ok: false; reason: string };

/** Whether a value satisfies the schema, with the first violation named when it does not. */
export function checkAgainst(spec: JsonSchemaSpec, value: unknown): Checked {
  const validator = validatorFor(spec.schema);
  if (validator.Check(value)) return { ok: true, value };
  const first = [...validator.Errors(value)][0];
  return { ok: false, reason: first ? `${first.instancePath || '/'} ${first.message}` : 'does not match the schema' };
}

/**
 * The JSON object in a model's reply. Models in JSON mode still sometimes wrap it in a ``` fence
 * or a sentence; the outermost {...} is taken then.
 */
export function parseJsonReply(text: string): unknown {
  const trimmed = text.trim();
  try {
    return JSON.parse(trimmed);
  } catch {
    const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(trimmed)?.[1];
    if (fenced) {
      try {
        return JSON.parse(fenced);
      } catch {
        // fall through to the brace scan
      }
    }
    const start = trimmed.indexOf('{');
    const end = trimmed.lastIndexOf('}');
    if (start >= 0 && end > start) return JSON.parse(trimmed.slice(start, end + 1));
    throw new SyntaxError('no JSON object in the reply');
  }
}

/** Parses and validates a reply; the reason says what was wrong, for the retry prompt and the log. */
export function readStructured(spec: JsonSchemaSpec, text: string): Checked {
  let value: unknown;
  try {
    value = parseJsonReply(text);
  } catch (error) {
    return { ok: false, reason: `not JSON (${(error as Error).message})` };
  }
  return checkAgainst(spec, value);
}

/** For providers without json_schema: the schema goes into the prompt, JSON mode does the rest. */
export function schemaInstruction(spec: JsonSchemaSpec): string {
  return (
    `\n\nAnswer with one JSON object only (no prose, no code fence) that is valid against this JSON Schema named "${spec.name}":\n` +
    JSON.stringify(spec.schema)
  );
}

/** Keywords OpenAI's strict structured outputs accept; everything else is dropped from what is sent. */
const STRICT_KEYWORDS = new Set([
  'type', 'description', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', '$defs', '$ref',
  'minItems', 'maxItems', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
]);

function typeOfValues(values: unknown[]): string | string[] {
  const types = [...new Set(values.map((v) => (v === null ? 'null' : Number.isInteger(v) ? 'integer' : typeof v)))];
  return types.length === 1 ? types[0]! : types;
}

/**
 * The schema as sent under `json_schema` strict mode: every node typed (TypeBox writes an enum
 * without `type`), every object closed with all its properties required, and the keywords strict
 * mode refuses (`minLength`, `maxLength`, ...) left out. The reply is still validated against the
 * full original schema, so nothing the dropped keywords said is lost.
 */
export function strictSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!STRICT_KEYWORDS.has(key)) continue;
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, strictSchema(sub as Record<string, unknown>)]));
    } else if (key === 'items' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      out.items = strictSchema(value as Record<string, unknown>);
    } else if ((key === 'anyOf') && Array.isArray(value)) {
      out.anyOf = value.map((sub) => strictSchema(sub as Record<string, unknown>));
    } else if (key === '$defs' && typeof value === 'object' && value !== null) {
      out.$defs = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, strictSchema(sub as Record<string, unknown>)]));
    } else {
      out[key] = value;
    }
  }
  if (out.type === undefined && Array.isArray(out.enum)) out.type = typeOfValues(out.enum);
  if (out.type === undefined && out.const !== undefined) out.type = typeOfValues([out.const]);
  if (out.type === 'object' || out.properties) {
    const properties = (out.properties ?? {}) as Record<string, unknown>;
    const required = new Set((out.required as string[] | undefined) ?? []);
    const optional = Object.keys(properties).filter((name) => !required.has(name));
    // Strict mode has no optional property; a schema with one cannot be sent as it means.
    if (optional.length > 0) throw new Error(`strict schema: properties ${optional.join(', ')} are optional`);
    out.type = 'object';
    out.properties = properties;
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  return out;
}
