import { parse } from 'mrz';
import { FaceModel } from '../../engines/vision/face-model';
import { checkDigit, idCard, idCardMrz, passportMrz, photo, selfie, tamperedMrz, type DocumentOptions } from '../../../test/kyc/fixtures';
import { hashDistance, readImage } from '../../engines/vision/images';
import { MrzReader } from '../../engines/vision/mrz-reader';
import type { KycSubmission } from './provider';
import { declineReasonOf } from './decline-reasons';
import { ageOn, DECLINE_BELOW, faceMatchScoreOf, REVIEW_BELOW, RuleBasedKycProvider } from './rules';

const NOW = new Date('2026-03-01T10:00:00Z');
// One face model and one MRZ reader for the file, loaded before the first test and kept warm until the last.
const faces = new FaceModel({ idleMs: 600_000 });
const zones = new MrzReader({ rusTrainedData: '/usr/share/tesseract-ocr/5/tessdata/rus.traineddata' });
const provider = new RuleBasedKycProvider(faces, zones);
/**
 * A check with the model and the zone's OCR costs 1–3 s of an idle core; this machine's two
 * cores are shared, and loaded twentyfold a check took 69 s (CI, fresh-ci 13:45, where 90 s
 * ran out for a test that makes its pictures and checks them).
 */
const WITH_MODEL_MS = 240_000;
beforeAll(() => Promise.all([faces.warm(), zones.warm()]), WITH_MODEL_MS);
afterAll(() => Promise.all([faces.close(), zones.close()]));
const anna = { country: 'KAZ', lastName: 'IVANOVA', firstName: 'ANNA', number: 'N12345678', birth: '1990-01-01', expiry: '2030-01-01' };
/** A passport photo of anna's (its zone hers), John Simm's photo on it unless told. */
const card = async (o: DocumentOptions = {}) => ({ type: 'image/jpeg' as const, bytes: await idCard({ holder: anna, ...o }) });

async function submission(over: Partial<KycSubmission['document']> = {}, files: Partial<KycSubmission['files']> = {}, level: 'basic' | 'advanced' = 'basic'): Promise<KycSubmission> {
  return {
    level,
    document: {
      type: 'passport',
      number: anna.number,
      country: anna.country,
      firstName: 'Anna',
      lastName: 'Ivanova',
      middleName: null,
      dateOfBirth: anna.birth,
      issuedAt: '2020-01-01',
      expiresAt: anna.expiry,
      mrz: passportMrz(anna),
      ...over,
    },
    files: {
      // anna's passport with John Simm's photo, and another photo of him as the selfie.
      document: await card(),
      selfie: { type: 'image/jpeg', bytes: await selfie() },
      ...files,
    },
  };
}

/** The session an automatic decline with this verdict leaves. */
const declined = (v: Awaited<ReturnType<RuleBasedKycProvider['verify']>>) => ({ status: 'DECLINED' as const, checkState: null, checks: v.checks as never, decidedBy: 'auto:rules' });
const failed = (v: Awaited<ReturnType<RuleBasedKycProvider['verify']>>) => v.checks.filter((c) => !c.passed).map((c) => c.name);

describe('rule-based KYC provider', () => {
  it('fixtures make zones the mrz library accepts', () => {
    expect(checkDigit('L898902C3')).toBe('6'); // ICAO 9303 specimen
    expect(parse(passportMrz(anna).split('\n')).valid).toBe(true);
  });

  it('approves a valid adult document with a matching MRZ, and a sharp selfie of the person on its photo', async () => {
    const v = await provider.verify(await submission(), NOW);
    expect(failed(v)).toEqual([]);
    expect(v.outcome).toBe('approve');
    expect(v.reason).toBeNull();
    expect(v.imageQualityScore).toBe(1);
    expect(v.faceMatchScore).toBeGreaterThanOrEqual(REVIEW_BELOW);
    expect(v.checks.map((c) => c.name)).toEqual(['document_expiry', 'document_issue_date', 'age', 'mrz', 'document_image', 'selfie_image', 'document_face', 'selfie_face', 'face_match']);
    expect(v.checks.find((c) => c.name === 'mrz')!.detail).toBe('TD3 zone read from the document photo: every check digit correct, matches the typed data; the typed zone is the same');
    // Another man, other photos: approved too.
    const salley = { document: await card({ person: 'John_Salley', index: 5 }), selfie: { type: 'image/jpeg' as const, bytes: await selfie({ person: 'John_Salley', index: 6 }) } };
    const other = await provider.verify(await submission({}, salley), NOW);
    expect(other.outcome).toBe('approve');
    expect(other.faceMatchScore).toBeGreaterThanOrEqual(REVIEW_BELOW);
  }, WITH_MODEL_MS);

  it('declines a selfie of someone else than the person on the document, with a low faceMatchScore', async () => {
    for (const person of ['John_Salley', 'John_Shimkus'] as const) {
      const v = await provider.verify(await submission({}, { selfie: { type: 'image/jpeg', bytes: await selfie({ person, index: 1 }) } }), NOW);
      expect(v.outcome).toBe('decline');
      expect(v.faceMatchScore).toBeLessThan(DECLINE_BELOW);
      expect(failed(v)).toEqual(['face_match']);
      expect(v.reason).toMatch(/^The selfie does not show the person on the document photo \(face distance 0\.\d+, faceMatchScore 0(\.\d+)?\)$/);
    }
  }, WITH_MODEL_MS);

  it('sends a pair of pictures the model cannot tell apart with confidence to a person', async () => {
    // The same man, in two photos the model finds 0.55 apart (the middle of the review band).
    const v = await provider.verify(
      await submission({}, { document: await card({ person: 'John_Shimkus', index: 9 }), selfie: { type: 'image/jpeg', bytes: await selfie({ person: 'John_Shimkus', index: 3 }) } }),
      NOW,
    );
    expect(v.outcome).toBe('review');
    expect(v.faceMatchScore).toBeGreaterThanOrEqual(DECLINE_BELOW);
    expect(v.faceMatchScore).toBeLessThan(REVIEW_BELOW);
    expect(v.reason).toMatch(/The faces may differ .*: a person compares them/);
  }, WITH_MODEL_MS);

  it('a document photo without a face goes to a person; a selfie without a face declines', async () => {
    const blank = await provider.verify(await submission({}, { document: await card({ portrait: await photo({ width: 180, height: 180, seed: 7 }) }) }), NOW);
    expect(blank.outcome).toBe('review');
    expect(failed(blank)).toEqual(['document_face']);
    expect(blank.faceMatchScore).toBe(0);
    expect(blank.reason).toBe('No face found on the document photo: a person compares it with the selfie');
    const noFace = await provider.verify(await submission({}, { selfie: { type: 'image/jpeg', bytes: await photo({ width: 480, height: 480, format: 'jpeg' }) } }), NOW);
    expect(noFace.outcome).toBe('decline');
    expect(failed(noFace)).toEqual(['selfie_face']);
    expect(noFace.faceMatchScore).toBe(0);
    expect(noFace.reason).toMatch(/No face found on the selfie/);
  }, WITH_MODEL_MS);

  it('maps the descriptor distance to faceMatchScore as documented', () => {
    expect([0, 0.3, 0.45, 0.5, 0.55, 0.6, 0.7, 1.2].map(faceMatchScoreOf)).toEqual([1, 1, 1, 0.8, 0.6, 0.4, 0, 0]);
  });

  it('declines an expired document and a minor', async () => {
    const expiry = '2026-02-28';
    const expired = await provider.verify(await submission({ expiresAt: expiry, mrz: passportMrz({ ...anna, expiry }) }, { document: await card({ holder: { ...anna, expiry } }) }), NOW);
    expect(expired.outcome).toBe('decline');
    expect(failed(expired)).toEqual(['document_expiry']);
    const birth = '2008-03-02'; // 18 tomorrow
    const minor = await provider.verify(await submission({ dateOfBirth: birth, mrz: passportMrz({ ...anna, birth }) }, { document: await card({ holder: { ...anna, birth } }) }), NOW);
    expect(minor.outcome).toBe('decline');
    expect(minor.reason).toContain('under 18');
    expect(ageOn('2008-03-01', '2026-03-01')).toBe(18);
  }, WITH_MODEL_MS);

  it('reads the zone off the document photo: its check digits and its agreement with the typed data and the typed zone decide', async () => {
    const mrzOf = (v: Awaited<ReturnType<RuleBasedKycProvider['verify']>>) => v.checks.find((c) => c.name === 'mrz')!;
    // Nothing typed: the photo's zone alone, a passport's or an identity card's.
    const passport = await provider.verify(await submission({ mrz: null }), NOW);
    expect(passport.outcome).toBe('approve');
    expect(mrzOf(passport).detail).toBe('TD3 zone read from the document photo: every check digit correct, matches the typed data');
    const idCardZone = await provider.verify(await submission({ type: 'id_card', mrz: null }, { document: await card({ zone: 'id_card' }) }), NOW);
    expect(idCardZone.outcome).toBe('approve');
    expect(mrzOf(idCardZone).detail).toBe('TD1 zone read from the document photo: every check digit correct, matches the typed data');
    // A forged check digit on the photo declines, whatever was typed.
    const forged = await provider.verify(await submission({}, { document: await card({ zone: { lines: tamperedMrz(passportMrz(anna), 1, 9) } }) }), NOW);
    expect(forged.outcome).toBe('decline');
    expect(failed(forged)).toEqual(['mrz']);
    expect(forged.reason).toMatch(/^The machine-readable zone read from the document photo is not valid \(Document number check digit/);
    const forgedCard = await provider.verify(await submission({ type: 'id_card', mrz: null }, { document: await card({ zone: { lines: tamperedMrz(idCardMrz(anna), 1, 6) } }) }), NOW);
    expect(forgedCard.reason).toMatch(/^The machine-readable zone read from the document photo is not valid \(Birth date check digit/);
    // The photo's zone is someone else's: declined even when the typed zone is made to match the typed data.
    const someoneElse = await provider.verify(await submission({}, { document: await card({ holder: { ...anna, number: 'N99999999' } }) }), NOW);
    expect(someoneElse.outcome).toBe('decline');
    expect(someoneElse.reason).toBe('The machine-readable zone read from the document photo does not match the typed document number');
    // A typed zone that is not the photo's (here valid, but another document's) declines.
    const typedOther = await provider.verify(await submission({ mrz: passportMrz({ ...anna, number: 'N99999999' }) }), NOW);
    expect(typedOther.outcome).toBe('decline');
    expect(typedOther.reason).toBe('The typed machine-readable zone is not the one read from the document photo');
    // Only a name disagrees with the photo's zone: names carry no check digit, so OCR may have
    // misread it, and a person compares rather than the customer being declined.
    const otherName = await provider.verify(await submission({ lastName: 'Ivanovna', mrz: null }), NOW);
    expect(otherName.outcome).toBe('review');
    expect(mrzOf(otherName)).toMatchObject({ passed: false, hard: false });
    expect(mrzOf(otherName).detail).toBe('The machine-readable zone read from the document photo does not match the typed last name: a person compares the names');
  }, 4 * WITH_MODEL_MS);

  it('without a zone on the photo, checks the typed one: a wrong check digit and an MRZ of someone else decline', async () => {
    const noZone = await card({ zone: null });
    const good = await provider.verify(await submission({}, { document: noZone }), NOW);
    expect(good.outcome).toBe('approve');
    expect(good.checks.find((c) => c.name === 'mrz')!.detail).toBe('TD3 zone typed: every check digit correct, matches the typed data (none could be read from the document photo)');
    const broken = tamperedMrz(passportMrz(anna), 1, 9);
    const digit = await provider.verify(await submission({ mrz: broken }, { document: noZone }), NOW);
    expect(digit.outcome).toBe('decline');
    expect(digit.reason).toMatch(/^The machine-readable zone typed is not valid \(.*check digit/i);
    const other = await provider.verify(await submission({ mrz: passportMrz({ ...anna, number: 'N99999999' }) }, { document: noZone }), NOW);
    expect(other.outcome).toBe('decline');
    expect(other.reason).toBe('The machine-readable zone typed does not match the typed document number (none could be read from the document photo)');
  }, WITH_MODEL_MS);

  it('declines the same picture twice (even re-encoded), an undecodable file and a tiny picture', async () => {
    const pic = await photo();
    const same = await provider.verify(await submission({}, { document: { type: 'image/png', bytes: pic }, selfie: { type: 'image/png', bytes: pic } }), NOW);
    expect(same.outcome).toBe('decline');
    expect(failed(same)).toContain('distinct_images');
    expect(same.faceMatchScore).toBe(0);
    const sharp = (await import('sharp')).default;
    const reencoded = await sharp(pic).resize(600).jpeg({ quality: 70 }).toBuffer();
    const a = await readImage(pic);
    const b = await readImage(reencoded);
    expect(a.ok && b.ok && hashDistance(a.facts.dhash, b.facts.dhash)).toBeLessThanOrEqual(10);
    const png = await photo();
    const truncated = png.subarray(0, 200);
    const broken = await provider.verify(await submission({}, { selfie: { type: 'image/png', bytes: truncated } }), NOW);
    expect(broken.outcome).toBe('decline');
    expect(failed(broken)).toContain('selfie_image');
    expect(declineReasonOf(declined(broken))).toBe('IMAGE_UNREADABLE');
    // A picture that reads but is too small says so, not "unreadable" (issue 31).
    const tiny = await provider.verify(await submission({}, { selfie: { type: 'image/png', bytes: await photo({ width: 150, height: 150 }) } }), NOW);
    expect(tiny.outcome).toBe('decline');
    expect(tiny.reason).toContain('150×150');
    expect(failed(tiny)).toContain('selfie_image');
    expect(declineReasonOf(declined(tiny))).toBe('IMAGE_TOO_SMALL');
  }, WITH_MODEL_MS);

  it('sends borderline cases to a person: no MRZ, slightly soft pictures, and every advanced level', async () => {
    // A document without a zone (or one too blurred to read), and none typed.
    const noMrz = await provider.verify(await submission({ mrz: null }, { document: await card({ zone: null }) }), NOW);
    expect(noMrz.outcome).toBe('review');
    expect(failed(noMrz)).toEqual(['mrz']);
    expect(noMrz.reason).toBe('No machine-readable zone could be read from the document photo, and none was typed: a person compares the document');
    const soft = await provider.verify(await submission({}, { selfie: { type: 'image/jpeg', bytes: await selfie({ grain: 0, blur: 1 }) } }), NOW);
    expect(soft.imageQualityScore).toBeGreaterThanOrEqual(0.4);
    expect(soft.imageQualityScore).toBeLessThan(0.8);
    expect(soft.faceMatchScore).toBeGreaterThanOrEqual(0.8);
    expect(soft.outcome).toBe('review');
    expect(failed(soft)).toEqual(['selfie_quality']);
    const blurred = await provider.verify(await submission({}, { selfie: { type: 'image/jpeg', bytes: await selfie({ blur: 8 }) } }), NOW);
    expect(blurred.outcome).toBe('decline');
    expect(blurred.reason).toMatch(/too blurred or badly lit/);
    const dark = await provider.verify(await submission({}, { selfie: { type: 'image/jpeg', bytes: await selfie({ dark: true }) } }), NOW);
    expect(dark.imageQualityScore).toBeLessThan(0.8);
    expect(dark.outcome).toBe('decline');
    const advanced = await provider.verify(await submission({}, { addressProof: { type: 'application/pdf', bytes: Buffer.from('%PDF-1.4\n') } }, 'advanced'), NOW);
    expect(advanced.outcome).toBe('review');
    expect(advanced.reason).toContain('proof of address');
  }, WITH_MODEL_MS);
});
