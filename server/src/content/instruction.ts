/**
 * An operator's instruction for one regenerated image (contract-decisions §8), added to the
 * frame's prompt as a constraint that wins over the frame's own direction where they differ.
 * The image stays text-free: the service draws any cover title or caption itself.
 */
export function withInstruction(prompt: string, instruction: string | null): string {
  const wish = instruction?.replace(/\s+/g, ' ').trim();
  if (!wish) return prompt;
  return `${prompt}\nOperator's instruction for this image (follow it where it differs from the direction above; still no text in the image): ${wish}`;
}
