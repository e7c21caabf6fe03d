/**
 * Saves a file answered with the bearer header (exports, fission zips): an `<a download>` over
 * a Blob URL, named by the response's Content-Disposition (else `fallbackName`).
 */
export async function saveFile(res: Response, fallbackName: string) {
  const disposition = res.headers.get('content-disposition') ?? '';
  const name = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? fallbackName;
  saveBlob(await res.blob(), name);
}

/** Saves what the page made itself (a template, an export built in the browser) under `name`. */
export function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
