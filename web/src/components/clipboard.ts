/**
 * Writes text to the clipboard, also where `navigator.clipboard` does not exist: browsers offer
 * it only in secure contexts (HTTPS or localhost), and teams often open the console by its
 * plain-HTTP intranet address. The fallback selects the text in an off-screen textarea and uses
 * the (deprecated but universally kept) copy command, which works there.
 */
export async function copyText(text: string): Promise<void> {
  if (typeof navigator !== 'undefined' && navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // Permission refused or the document not focused: the fallback may still work.
    }
  }
  copyBySelection(text);
}

function copyBySelection(text: string): void {
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.setAttribute('aria-hidden', 'true');
  // Off screen but rendered: a hidden element cannot be selected.
  area.style.position = 'fixed';
  area.style.top = '0';
  area.style.left = '-9999px';
  area.style.opacity = '0';
  const active = document.activeElement as HTMLElement | null;
  document.body.appendChild(area);
  area.focus();
  area.select();
  area.setSelectionRange(0, text.length);
  let copied = false;
  try {
    copied = document.execCommand('copy');
  } finally {
    area.remove();
    active?.focus?.();
  }
  if (!copied) throw new Error('copy command refused');
}
