import { parse } from 'mrz';
import type { PSM, WorkerParams } from 'tesseract.js';
import { ImageOcr, type OcrOptions } from './ocr';
import { loadSharp } from './images';

/** The only characters a machine-readable zone has (ICAO 9303-3): tesseract reads nothing else. */
export const MRZ_CHARACTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<';

/** The zones this service accepts: TD3 (passport) 2 × 44, TD1 (identity card) 3 × 30. */
const SHAPES = [
  { format: 'TD3', lines: 2, length: 44 },
  { format: 'TD1', lines: 3, length: 30 },
] as const;

/** A zone sits in the bottom part of the document; the picture is read from this height down. */
const ZONE_FROM = 0.45;
/** A line read this many characters short is still taken (its longest run of fillers lengthened). */
const SHORT_SLACK = 3;
/** A line read up to this many characters long is still taken (specks beside the zone read as characters). */
const LONG_SLACK = 10;

/**
 * How the crop is read. First a quick look, the grain taken out before enlarging and with
 * tesseract's heavy noise removal (about a second even on a textured picture, which otherwise
 * costs it 10–40 s of specks), that only tells whether lines of a zone's shape are there: it
 * misreads a few characters, so the zone is then read with finer preparation. A zone found
 * invalid is read again at another scale, and believed only when both readings agree
 * character for character (so a misread is not taken for a forged check digit).
 */
type Preparation = { width: number; quick: boolean };
const LOOK: Preparation = { width: 1200, quick: true };
const READINGS: Preparation[] = [
  { width: 1500, quick: false },
  { width: 1200, quick: false },
];

/** A zone read off a picture: its lines (evened out to their length, OCR's confusions repaired) and whether the `mrz` library finds it valid. */
export interface ZoneReading {
  lines: string[];
  valid: boolean;
}

/**
 * Reads the machine-readable zone off a document photo with real OCR: tesseract.js through the
 * receipts' ImageOcr (one worker, created on first use and kept warm, its data read from disk),
 * English data on the legacy engine with the MRZ characters only. The bottom part of the
 * picture is cropped, enlarged and its grain removed (LOOK, READINGS); tesseract's lines are
 * searched for 2 of 44 characters (TD3) or 3 of 30 (TD1). The `mrz` library repairs the
 * common confusions where a field is numeric or alphabetic (O/0, I/1, B/8…: `autocorrect`) and
 * validates the check digits; it also places a line read with specks around it (the window
 * that it finds most valid). Null when no zone can be read: a document without one, or one too
 * blurred to read the same way twice.
 */
export class MrzReader {
  private readonly ocr: ImageOcr;

  constructor(opts: OcrOptions) {
    // Page segmentation 6: one uniform block of text (the crop). A type-only import of PSM,
    // so tesseract.js itself is loaded with the first picture, not with this module. The legacy
    // engine's adaptive classifier learns from every page it reads: off, so a picture reads
    // the same whatever was read before it. Heavy noise removal is set per image (LOOK, READINGS).
    this.ocr = new ImageOcr(opts, {
      languages: ['eng'],
      engine: 'legacy',
      parameters: { tessedit_char_whitelist: MRZ_CHARACTERS, tessedit_pageseg_mode: '6' as PSM, classify_enable_learning: '0' } as Partial<WorkerParams>,
    });
  }

  /** Starts the OCR worker now (else the first check pays the cold start, a second or two). */
  warm(): Promise<void> {
    return this.ocr.warm();
  }

  async read(image: Buffer): Promise<ZoneReading | null> {
    const sharp = await loadSharp();
    let grey: Buffer;
    try {
      grey = await crop(sharp, image);
    } catch {
      return null; // not a picture: readImage reports it
    }
    const text = async (p: Preparation) => {
      // The camera's grain out with a 3 px median: at the picture's own scale for the quick
      // look (fewer specks), once enlarged for a reading (the strokes kept whole).
      const scaled = p.quick
        ? await sharp(await sharp(grey).median(3).png().toBuffer()).resize({ width: p.width, kernel: 'lanczos3' }).normalise().png().toBuffer()
        : await sharp(await sharp(grey).resize({ width: p.width, kernel: 'lanczos3' }).png().toBuffer()).median(3).normalise().png().toBuffer();
      return (await this.ocr.read(scaled, { textord_heavy_nr: p.quick ? '1' : '0' } as Partial<WorkerParams>)).text;
    };
    if (zoneRuns(await text(LOOK)).length === 0) return null;
    const first = findZone(await text(READINGS[0]!));
    if (first?.valid) return first;
    const second = findZone(await text(READINGS[1]!));
    if (second?.valid) return second;
    if (first && second && first.lines.join('\n') === second.lines.join('\n')) return first;
    return null;
  }

  close(): Promise<void> {
    return this.ocr.close();
  }
}

/**
 * The bottom part of the picture, upright and grey, as PNG. Scaled later relative to the
 * picture, not to the zone: a document filling a 12 MP photo gets smaller characters than
 * READINGS aim at, but still more than tesseract needs.
 */
async function crop(sharp: Awaited<ReturnType<typeof loadSharp>>, image: Buffer): Promise<Buffer> {
  const upright = await sharp(image, { limitInputPixels: 40_000_000, failOn: 'error' }).rotate().greyscale().png().toBuffer({ resolveWithObject: true });
  const { width, height } = upright.info;
  const top = Math.floor(height * ZONE_FROM);
  return sharp(upright.data).extract({ left: 0, top, width, height: height - top }).png().toBuffer();
}

type Parsed = ReturnType<typeof parse>;

/** Parsed with OCR's confusions repaired; null when the lines do not even have a zone's shape. */
export function parseRead(lines: string[]): Parsed | null {
  try {
    return parse(lines, { autocorrect: true });
  } catch {
    return null;
  }
}

const isCheckDigit = (d: Parsed['details'][number]) => (d.field ?? '').endsWith('CheckDigit');

/** Lines that may be a zone, and the length each of them must have. */
type ZoneRun = { length: number; lines: string[] };

/**
 * Runs of consecutive lines of MRZ characters about as long as a TD3 or TD1 zone's lines, one
 * of them with a run of fillers (`<<<`, as every zone has after the names or in its optional
 * data; specks read as text seldom have one).
 */
function zoneRuns(text: string): ZoneRun[] {
  const lines = text
    .split('\n')
    .map((l) => l.replace(/\s+/g, ''))
    .filter((l) => l.length > 0);
  const runs: ZoneRun[] = [];
  for (const shape of SHAPES) {
    const fits = (l: string) => /^[A-Z0-9<]+$/.test(l) && l.length >= shape.length - SHORT_SLACK && l.length <= shape.length + LONG_SLACK;
    for (let i = 0; i + shape.lines <= lines.length; i++) {
      const run = lines.slice(i, i + shape.lines);
      if (run.every(fits) && run.some((l) => l.includes('<<<'))) runs.push({ length: shape.length, lines: run });
    }
  }
  return runs;
}

/**
 * The zone in tesseract's text: a run of lines of a zone's shape (zoneRuns), each placed by
 * the `mrz` library: of every way to cut specks off its ends and even out its longest run of
 * fillers to the right length, the combination with the most valid fields is taken. A zone
 * whose fields other than check digits are not all valid (a misread document code, a digit in
 * a name) is no zone: only its check digits may be wrong.
 */
export function findZone(text: string): ZoneReading | null {
  for (const run of zoneRuns(text)) {
    const best = bestPlacing(run.lines.map((line) => placings(line, run.length)));
    if (best) return best;
  }
  return null;
}

function placings(line: string, length: number): string[] {
  const out = new Set<string>();
  for (let start = 0; start <= Math.min(LONG_SLACK, line.length - length + SHORT_SLACK); start++) {
    const rest = line.slice(start);
    if (rest.length >= length) out.add(rest.slice(0, length));
    if (rest.length >= length - SHORT_SLACK) out.add(evenOut(rest, length));
  }
  return [...out];
}

/** The line with its longest run of fillers lengthened or shortened to make it `length` long. */
function evenOut(line: string, length: number): string {
  const runs = [...line.matchAll(/<+/g)];
  if (runs.length === 0) return line.slice(0, length);
  const longest = runs.reduce((a, b) => (b[0].length > a[0].length ? b : a));
  const fill = Math.max(0, longest[0].length + length - line.length);
  return (line.slice(0, longest.index) + '<'.repeat(fill) + line.slice(longest.index + longest[0].length)).slice(0, length);
}

function bestPlacing(options: string[][]): ZoneReading | null {
  let best: { lines: string[]; score: number; parsed: Parsed } | null = null;
  const visit = (chosen: string[]) => {
    if (chosen.length < options.length) {
      for (const o of options[chosen.length]!) visit([...chosen, o]);
      return;
    }
    const parsed = parseRead(chosen);
    if (!parsed) return;
    const score = parsed.details.filter((d) => d.valid).length;
    if (!best || score > best.score) best = { lines: chosen, score, parsed };
  };
  visit([]);
  const found = best as { lines: string[]; parsed: Parsed } | null;
  if (!found || found.parsed.details.some((d) => !d.valid && !isCheckDigit(d))) return null;
  return { lines: corrected(found.lines, found.parsed), valid: found.parsed.valid };
}

/** The lines with the `mrz` library's autocorrections applied: what the zone says, O and 0 put right. */
export function corrected(lines: string[], parsed: Parsed): string[] {
  const out = lines.map((l) => [...l]);
  for (const d of parsed.details) for (const a of d.autocorrect) out[a.line]![a.column] = a.corrected;
  return out.map((l) => l.join(''));
}
