/**
 * The pixel size an image declares in its header, read before anything decodes it: a
 * 300 KB PNG can declare 30,000 × 30,000 pixels, 3.6 GB once decoded. Null when the header
 * cannot be read (the decoder will then refuse the file itself).
 */
export function imageSize(b: Buffer, type: string): { width: number; height: number } | null {
  if (type === 'image/png') {
    // Signature (8), IHDR length (4) and type (4), then width and height.
    if (b.length < 24 || b.toString('latin1', 12, 16) !== 'IHDR') return null;
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  }
  if (type === 'image/jpeg') {
    // Walk the markers to the first start-of-frame (SOF0..SOF15 but DHT C4, JPG C8, DAC CC).
    let at = 2;
    while (at + 9 < b.length) {
      if (b[at] !== 0xff) return null;
      const marker = b[at + 1]!;
      if (marker === 0xff) {
        at++;
        continue;
      }
      const length = b.readUInt16BE(at + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: b.readUInt16BE(at + 7), height: b.readUInt16BE(at + 5) };
      }
      at += 2 + length;
    }
  }
  return null;
}

/** Larger than any phone screenshot or photo of a receipt (a 50 MP camera is 8,160 × 6,120). */
export const MAX_IMAGE_PIXELS = 50_000_000;
