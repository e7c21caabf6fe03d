import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOGUE_CHECKED_ON, PRESETS } from '../../src/providers/presets.js';

/**
 * docs/providers.md is kept beside the catalogue (presets.ts): a provider change edits both, and
 * this fails when one was forgotten. It reads the document's tables, not the code's wording.
 */
const doc = readFileSync(new URL('../../../docs/providers.md', import.meta.url), 'utf8');

/** The cells of the table rows whose first cell is the given one. */
function rows(firstCell: string): string[][] {
  return doc
    .split('\n')
    .filter((line) => line.startsWith(`| ${firstCell} `))
    .map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));
}

describe('docs/providers.md agrees with the catalogue', () => {
  it('names the day the catalogue was checked', () => {
    expect(doc).toContain(`## The dated catalogue (checked ${CATALOGUE_CHECKED_ON})`);
  });

  for (const preset of Object.values(PRESETS)) {
    it(`${preset.label}: endpoint and default models`, () => {
      const [row] = rows(`\`${preset.label}\` (${preset.displayName})`);
      expect(row, `no row for ${preset.label}`).toBeDefined();
      const [, endpoint, models] = row!;
      if (preset.baseUrl) expect(endpoint).toContain(`\`${preset.baseUrl}\``);
      for (const model of [preset.textModel, preset.visionModel, preset.imageModel].filter(Boolean)) expect(models).toContain(`\`${model}\``);
    });

    it(`${preset.label}: the rate-limit defaults are the table's`, () => {
      const row = rows(`\`${preset.label}\``).find((cells) => /^[\d ]+$/.test(cells[1] ?? '') && /^[\d ]+$/.test(cells[2] ?? ''));
      expect(row, `no rate-limit row for ${preset.label}`).toBeDefined();
      expect([Number(row![1]!.replace(/ /g, '')), Number(row![2]!.replace(/ /g, ''))]).toEqual([preset.rpm, preset.tpm]);
    });

    it(`${preset.label}: every known shutdown day is listed, and no other`, () => {
      const listed = rows(`\`${preset.label}\``)
        .filter((cells) => /^\d{4}-\d\d-\d\d$/.test(cells[2] ?? ''))
        .map((cells) => [cells[1]!.replace(/`/g, ''), cells[2]]);
      expect(Object.fromEntries(listed)).toEqual(preset.retirements);
    });
  }
});
