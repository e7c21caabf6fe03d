import { afterEach, describe, expect, it, vi } from 'vitest';
import { copyText } from './clipboard';

describe('copyText', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('uses the Clipboard API in a secure context', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    vi.stubGlobal('isSecureContext', true);
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    await copyText('标题');
    expect(writeText).toHaveBeenCalledWith('标题');
  });

  it('over plain HTTP (no navigator.clipboard) copies the selected text with the copy command', async () => {
    vi.stubGlobal('isSecureContext', false);
    vi.stubGlobal('navigator', { ...navigator, clipboard: undefined });
    let copied = '';
    const exec = vi.fn((command: string) => {
      const area = document.activeElement as HTMLTextAreaElement;
      copied = area.value.slice(area.selectionStart, area.selectionEnd);
      return command === 'copy';
    });
    Object.defineProperty(document, 'execCommand', { value: exec, configurable: true });
    await copyText('正文\n#标签');
    expect(exec).toHaveBeenCalledWith('copy');
    expect(copied).toBe('正文\n#标签');
    // The helper leaves nothing behind in the page.
    expect(document.querySelectorAll('textarea')).toHaveLength(0);
  });

  it('rejects when neither way works, so the caller can say so', async () => {
    vi.stubGlobal('isSecureContext', false);
    vi.stubGlobal('navigator', { ...navigator, clipboard: undefined });
    Object.defineProperty(document, 'execCommand', { value: () => false, configurable: true });
    await expect(copyText('x')).rejects.toThrow();
  });
});
