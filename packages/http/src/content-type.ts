/**
 * What an uploaded file is, judged by its bytes, never by its name or the client's
 * Content-Type: a PNG named receipt.pdf is a PNG, and an HTML file named photo.jpg is refused.
 */
export type SniffedType = 'image/png' | 'image/jpeg' | 'image/webp' | 'application/pdf' | 'text/csv';

const starts = (b: Buffer, bytes: number[], at = 0) => b.length >= at + bytes.length && bytes.every((x, i) => b[at + i] === x);

/** Text a CSV may be: valid UTF-8 (a BOM allowed), no NUL bytes, no control characters besides tab, CR and LF. */
function isCsvText(b: Buffer): boolean {
  if (b.includes(0)) return false;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(b);
  } catch {
    return false;
  }
  // eslint-disable-next-line no-control-regex
  return !/[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text);
}

export function sniffType(b: Buffer): SniffedType | null {
  if (starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts(b, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts(b, [0x52, 0x49, 0x46, 0x46]) && starts(b, [0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  if (starts(b, [0x25, 0x50, 0x44, 0x46, 0x2d])) return 'application/pdf'; // %PDF-
  if (b.length > 0 && isCsvText(b)) return 'text/csv';
  return null;
}
