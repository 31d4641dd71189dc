import { descriptorDistance, type Face } from '../../engines/vision/face-model';
import { captureQuality, hashDistance, MIN_IMAGE_SIDE, readImage, type ImageFacts } from '../../engines/vision/images';
import { checkMrz } from './mrz';
import type { ZoneReading } from '../../engines/vision/mrz-reader';
import type { KycCheck, KycImage, KycProvider, KycSubmission, KycVerdict } from './provider';

export const ADULT_AGE = 18;
/** Pictures closer than this (dHash bits) are the same picture sent twice. */
export const SAME_PICTURE_DISTANCE = 10;
/** Below this a score declines; from it up to REVIEW_BELOW a person decides (SCORES_DOC). */
export const DECLINE_BELOW = 0.4;
export const REVIEW_BELOW = 0.8;
/**
 * faceMatchScore from the distance between the two face descriptors: 1 up to FULL_MATCH_DISTANCE,
 * falling linearly to 0 at NO_MATCH_DISTANCE. So 0.8 (REVIEW_BELOW: approved) at a distance of
 * 0.50, and 0.4 (DECLINE_BELOW) at 0.60, the distance at which the model's authors tell two
 * people apart. On dlib's test faces two pictures of one person are 0.10–0.56 apart (median
 * 0.33) and two people 0.65–1.12.
 */
export const FULL_MATCH_DISTANCE = 0.45;
export const NO_MATCH_DISTANCE = 0.7;

/** What the rule-based provider needs of the face model (FaceModel; its worker thread holds the weights). */
export interface FaceFinder {
  describe(images: Buffer[]): Promise<(Face | null)[]>;
}

/** What it needs of the MRZ reader (MrzReader: OCR of the document photo's machine-readable zone). */
export interface ZoneFinder {
  read(image: Buffer): Promise<ZoneReading | null>;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** See FULL_MATCH_DISTANCE. */
export function faceMatchScoreOf(distance: number): number {
  return round3(Math.max(0, Math.min(1, (NO_MATCH_DISTANCE - distance) / (NO_MATCH_DISTANCE - FULL_MATCH_DISTANCE))));
}

/** Whole years from `birth` to `today` (both `YYYY-MM-DD`). */
export function ageOn(birth: string, today: string): number {
  const [by, bm, bd] = birth.split('-').map(Number) as [number, number, number];
  const [ty, tm, td] = today.split('-').map(Number) as [number, number, number];
  return ty - by - (tm < bm || (tm === bm && td < bd) ? 1 : 0);
}

function documentChecks(s: KycSubmission, today: string): KycCheck[] {
  const d = s.document;
  const checks: KycCheck[] = [];
  checks.push(
    d.expiresAt > today
      ? { name: 'document_expiry', passed: true, hard: true, detail: `Valid until ${d.expiresAt}` }
      : { name: 'document_expiry', passed: false, hard: true, detail: `The document expired on ${d.expiresAt}` },
  );
  if (d.issuedAt !== null) {
    const ok = d.issuedAt <= today && d.issuedAt < d.expiresAt && d.issuedAt > d.dateOfBirth;
    checks.push({ name: 'document_issue_date', passed: ok, hard: true, detail: ok ? `Issued ${d.issuedAt}` : `The issue date ${d.issuedAt} is impossible` });
  }
  const age = ageOn(d.dateOfBirth, today);
  checks.push(
    age >= ADULT_AGE
      ? { name: 'age', passed: true, hard: true, detail: `${age} years old` }
      : { name: 'age', passed: false, hard: true, detail: `The customer is ${Math.max(0, age)}, under ${ADULT_AGE}` },
  );
  return checks;
}

type Read = { label: string; facts: ImageFacts };

async function imageChecks(files: Record<string, KycImage | undefined>): Promise<{ checks: KycCheck[]; read: Map<string, Read> }> {
  const checks: KycCheck[] = [];
  const read = new Map<string, Read>();
  for (const [label, file] of Object.entries(files)) {
    if (!file || file.type === 'application/pdf') continue; // a PDF proof of address is read by a person
    const r = await readImage(file.bytes);
    if (!r.ok) {
      checks.push({ name: `${label}_image`, passed: false, hard: true, detail: `The ${label} picture ${r.problem}` });
      continue;
    }
    const { width, height } = r.facts;
    const big = Math.min(width, height) >= MIN_IMAGE_SIDE;
    checks.push({
      name: `${label}_image`,
      passed: big,
      hard: true,
      detail: big ? `${width}×${height}, quality ${round3(captureQuality(r.facts))}` : `The ${label} picture is ${width}×${height}; at least ${MIN_IMAGE_SIDE}×${MIN_IMAGE_SIDE} is needed`,
      ...(big ? {} : { reason: 'IMAGE_TOO_SMALL' as const }),
    });
    read.set(label, { label, facts: r.facts });
  }
  const all = [...read.values()];
  for (let i = 0; i < all.length; i++) {
    for (let j = i + 1; j < all.length; j++) {
      const distance = hashDistance(all[i]!.facts.dhash, all[j]!.facts.dhash);
      if (distance <= SAME_PICTURE_DISTANCE) {
        checks.push({ name: 'distinct_images', passed: false, hard: true, detail: `The ${all[i]!.label} and ${all[j]!.label} pictures are the same picture` });
      }
    }
  }
  return { checks, read };
}

/**
 * Capture quality of a picture (captureQuality; the selfie's is imageQualityScore, the API's
 * livenessScore): listed only
 * when short of REVIEW_BELOW, declining under DECLINE_BELOW.
 */
function qualityCheck(label: 'document' | 'selfie', quality: number): KycCheck[] {
  if (quality >= REVIEW_BELOW) return [];
  const hard = quality < DECLINE_BELOW;
  const what = `quality ${quality}`;
  return [
    {
      name: `${label}_quality`,
      passed: false,
      hard,
      detail: hard ? `The ${label} picture is too blurred or badly lit to verify (${what})` : `The ${label} picture is soft or badly lit (${what}): a person looks at it`,
    },
  ];
}

/**
 * The face checks: a face on the document photo (soft: a worn, glared or oddly laid out
 * document can hide its portrait from the detector, so a person looks), a face on the selfie
 * (hard: a selfie without a face is no selfie; the customer takes it again in a new session, as
 * for a blurred one), and how well the two match (faceMatchScore: approved from REVIEW_BELOW,
 * a person compares from DECLINE_BELOW, declined under it).
 */
function faceChecks(document: Face | null, selfie: Face | null): { checks: KycCheck[]; faceMatchScore: number } {
  const found = (label: string, face: Face | null, hard: boolean): KycCheck =>
    face
      ? { name: `${label}_face`, passed: true, hard, detail: `A face found (confidence ${round3(face.confidence)})` }
      : {
          name: `${label}_face`,
          passed: false,
          hard,
          detail: hard ? `No face found on the ${label}: it must show the customer's face, facing the camera` : `No face found on the ${label} photo: a person compares it with the selfie`,
        };
  const checks = [found('document', document, false), found('selfie', selfie, true)];
  if (!document || !selfie) return { checks, faceMatchScore: 0 };
  const distance = descriptorDistance(document.descriptor, selfie.descriptor);
  const faceMatchScore = faceMatchScoreOf(distance);
  const measured = `face distance ${round3(distance)}, faceMatchScore ${faceMatchScore}`;
  checks.push(
    faceMatchScore >= REVIEW_BELOW
      ? { name: 'face_match', passed: true, hard: false, detail: `The selfie matches the document photo (${measured})` }
      : faceMatchScore < DECLINE_BELOW
        ? { name: 'face_match', passed: false, hard: true, detail: `The selfie does not show the person on the document photo (${measured})` }
        : { name: 'face_match', passed: false, hard: false, detail: `The faces may differ (${measured}): a person compares them` },
  );
  return { checks, faceMatchScore };
}

/**
 * The shipped provider: fixed rules over the document data, its machine-readable zone (read
 * off the document photo by OCR, else as typed: checkMrz) and the pictures, and a face model
 * comparing the document photo with the selfie (see SCORES_DOC for the scores and the
 * decision). Deterministic: the same submission on the same day gets the same verdict. The
 * zone's OCR and the face model (each a second or so) run at once; the model only when the
 * data and pictures have not declined the session already.
 */
export class RuleBasedKycProvider implements KycProvider {
  readonly name = 'rules';

  constructor(
    private readonly faces: FaceFinder,
    private readonly zones: ZoneFinder,
  ) {}

  async verify(s: KycSubmission, now: Date): Promise<KycVerdict> {
    const today = now.toISOString().slice(0, 10);
    const images = await imageChecks({ document: s.files.document, selfie: s.files.selfie, address: s.files.addressProof });
    const selfie = images.read.get('selfie')?.facts;
    const document = images.read.get('document')?.facts;
    const imageQualityScore = selfie ? round3(captureQuality(selfie)) : 0;
    const rest = [...images.checks];
    if (s.level === 'advanced') {
      // Nothing here can read an address off a bill: the advanced level always ends with a person.
      rest.push({ name: 'address_proof', passed: false, hard: false, detail: 'A person checks the proof of address' });
    }
    if (selfie) rest.push(...qualityCheck('selfie', imageQualityScore));
    if (document) rest.push(...qualityCheck('document', round3(captureQuality(document))));
    const data = documentChecks(s, today);
    const declined = (checks: KycCheck[]) => checks.filter((c) => c.hard && !c.passed);

    const [zone, faceFound] = await Promise.all([
      document ? this.zones.read(s.files.document.bytes) : null,
      declined([...data, ...rest]).length === 0 ? this.faces.describe([s.files.document.bytes, s.files.selfie.bytes]) : null,
    ]);
    const checks = [...data, ...checkMrz(s, now, zone), ...rest];
    let faceMatchScore = 0;
    if (faceFound) {
      const face = faceChecks(faceFound[0] ?? null, faceFound[1] ?? null);
      checks.push(...face.checks);
      faceMatchScore = face.faceMatchScore;
    }
    const verdict = (outcome: KycVerdict['outcome'], reason: string | null): KycVerdict => ({ outcome, reason, faceMatchScore, imageQualityScore, checks });
    const hard = declined(checks);
    if (hard.length > 0) return verdict('decline', hard.map((c) => c.detail).join('; '));
    const soft = checks.filter((c) => !c.passed);
    if (soft.length > 0) return verdict('review', soft.map((c) => c.detail).join('; '));
    return verdict('approve', null);
  }
}
