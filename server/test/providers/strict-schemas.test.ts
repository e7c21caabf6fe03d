import { describe, expect, it } from 'vitest';
import { fissionReplySchema } from '../../src/content/fission.js';
import { notesReplySchema, scoreReplySpec } from '../../src/content/schemas.js';
import { FEATURES_JSON_SCHEMA } from '../../src/modules/benchmarks/features.js';
import { checkAgainst, strictSchema } from '../../src/providers/structured.js';
import { strictViolations } from './strict-rules.js';

/** Every structured reply the service asks for, in the sizes it asks for them. */
const sent = [
  ...[1, 2, 3].map((n) => notesReplySchema(n)),
  scoreReplySpec,
  ...[1, 3, 5, 10].flatMap((n) => [1, 4, 6].map((k) => fissionReplySchema(n, k))),
  { name: 'benchmark_features', schema: FEATURES_JSON_SCHEMA },
];

describe('schemas sent under OpenAI strict mode', () => {
  it('the checker catches what strict mode refuses', () => {
    expect(strictViolations({ type: 'object', properties: { role: { enum: ['a', 'b'] } }, required: ['role'], additionalProperties: false })).toEqual(['#/properties/role: no type']);
    expect(strictViolations({ type: 'object', properties: { t: { type: 'string', maxLength: 4 } }, required: [], additionalProperties: false })).toEqual([
      '#/t: not required',
      '#/properties/t: unsupported keyword maxLength',
    ]);
    expect(strictViolations({ type: 'object', properties: {} })).toEqual(['#: additionalProperties must be false']);
  });

  for (const spec of sent) {
    it(`${spec.name} passes every strict rule once prepared, and a reply to it still passes the full schema`, () => {
      const prepared = strictSchema(spec.schema);
      expect(strictViolations(prepared)).toEqual([]);
      // What the preparation dropped still binds the reply: the original schema validates it.
      expect(checkAgainst(spec, {}).ok).toBe(false);
    });
  }

  it('types an enum from its values (fission roles) and drops length limits (benchmark tags)', () => {
    const raw = fissionReplySchema(2, 3).schema;
    // As written (TypeBox), the role enum carries no type: strict mode would refuse it.
    expect(strictViolations(raw).some((v) => /role: no type/.test(v))).toBe(true);
    const role = (strictSchema(raw) as any).properties.packages.items.properties.image_plan.items.properties.role;
    expect(role.type).toBe('string');
    expect(role.enum).toContain('hook');
    expect(JSON.stringify(strictSchema(FEATURES_JSON_SCHEMA))).not.toContain('maxLength');
    expect(JSON.stringify(FEATURES_JSON_SCHEMA)).toContain('maxLength');
  });

  it('hands out one spec per reply shape, so its validator is compiled once, not on every call', () => {
    expect(notesReplySchema(3)).toBe(notesReplySchema(3));
    expect(fissionReplySchema(2, 3)).toBe(fissionReplySchema(2, 3));
    expect(notesReplySchema(3)).not.toBe(notesReplySchema(2));
    expect(fissionReplySchema(2, 3)).not.toBe(fissionReplySchema(3, 2));
    expect((fissionReplySchema(3, 2).schema as any).properties.packages.minItems).toBe(3);
  });
});
