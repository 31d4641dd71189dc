import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareLanguageData } from './ocr';

describe('OCR language data', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessdata-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is laid out from disk only: English from the npm package, Russian from the system', async () => {
    await prepareLanguageData({ langDir: dir, rusTrainedData: '/usr/share/tesseract-ocr/5/tessdata/rus.traineddata' });
    expect(readdirSync(dir).sort()).toEqual(['eng.traineddata', 'rus.traineddata']);
    expect(statSync(join(dir, 'eng.traineddata')).size).toBeGreaterThan(1_000_000);
  });

  it('names the missing Russian file and how to install it, instead of fetching anything', async () => {
    const empty = join(dir, 'empty');
    await expect(prepareLanguageData({ langDir: empty, rusTrainedData: '/nowhere/rus.traineddata' })).rejects.toThrow(
      /Russian OCR data not found at \/nowhere\/rus\.traineddata: install Debian's tesseract-ocr-rus/,
    );
  });
});
