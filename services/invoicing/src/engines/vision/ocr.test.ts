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

  it('lays out only the languages asked; the legacy engine its English (with the legacy model) in a folder of its own', async () => {
    const only = join(dir, 'eng-only');
    const legacy = await prepareLanguageData({ langDir: only, rusTrainedData: '/nowhere/rus.traineddata' }, ['eng'], 'legacy');
    expect(legacy).toBe(join(only, 'legacy'));
    expect(readdirSync(only)).toEqual(['legacy']);
    expect(readdirSync(legacy)).toEqual(['eng.traineddata']);
    // The full build is larger than best_int: it carries the legacy classifier too.
    expect(statSync(join(legacy, 'eng.traineddata')).size).toBeGreaterThan(statSync(join(dir, 'eng.traineddata')).size);
    await expect(prepareLanguageData({ langDir: only, rusTrainedData: '/nowhere' }, ['rus'], 'legacy')).rejects.toThrow(/English only/);
  });

  it('names the missing Russian file and how to install it, instead of fetching anything', async () => {
    const empty = join(dir, 'empty');
    await expect(prepareLanguageData({ langDir: empty, rusTrainedData: '/nowhere/rus.traineddata' })).rejects.toThrow(
      /Russian OCR data not found at \/nowhere\/rus\.traineddata: install Debian's tesseract-ocr-rus/,
    );
  });
});
