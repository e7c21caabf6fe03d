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
