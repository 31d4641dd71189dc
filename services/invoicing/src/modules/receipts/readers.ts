import type { SniffedType } from '@pay/http';
import type { Reading } from './decision';
import { imageSize, MAX_IMAGE_PIXELS } from '../../engines/vision/image-size';
import { ImageOcr, type OcrOptions } from '../../engines/vision/ocr';
import { PdfTextReader, PdfUnreadableError } from './pdf-text';

/**
 * Text out of a receipt file: a PDF's text layer (pdf.js), an image's OCR (tesseract.js).
 * A PDF with no text layer (a scan) reads as empty and is rejected as unreadable.
 */
export class ReceiptReaders {
  readonly ocr: ImageOcr;
  readonly pdf = new PdfTextReader();

  constructor(ocr: OcrOptions) {
    this.ocr = new ImageOcr(ocr);
  }

  async read(bytes: Buffer, type: SniffedType | string): Promise<Reading> {
    if (type === 'application/pdf') {
      try {
        // A text layer is the document's own text, not a guess: confidence 1.
        return { text: await this.pdf.read(bytes), confidence: 1 };
      } catch (err) {
        if (err instanceof PdfUnreadableError) return { text: '', confidence: 0, failure: `the PDF could not be read (${err.message})` };
        throw err;
      }
    }
    const size = imageSize(bytes, type);
    if (size && size.width * size.height > MAX_IMAGE_PIXELS) {
      return { text: '', confidence: 0, failure: `the image declares ${size.width} × ${size.height} pixels, more than the ${MAX_IMAGE_PIXELS / 1e6} million a receipt can have` };
    }
    return this.ocr.read(bytes);
  }

  async close(): Promise<void> {
    await Promise.all([this.ocr.close(), this.pdf.close()]);
  }
}
