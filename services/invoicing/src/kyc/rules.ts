import { captureQuality, hashDistance, MIN_IMAGE_SIDE, readImage, type ImageFacts } from './images';
import { checkMrz } from './mrz';
import type { KycCheck, KycImage, KycProvider, KycSubmission, KycVerdict } from './provider';

export const ADULT_AGE = 18;
/** Pictures closer than this (dHash bits) are the same picture sent twice. */
export const SAME_PICTURE_DISTANCE = 10;
/** Distance at which two pictures count as fully different for faceMatchScore. */
const DISTINCT_DISTANCE = 16;
/** Below this a score declines; from it up to REVIEW_BELOW a person decides (SCORES_DOC). */
export const DECLINE_BELOW = 0.4;
export const REVIEW_BELOW = 0.8;

const round3 = (x: number) => Math.round(x * 1000) / 1000;

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
 * The shipped provider: fixed rules over the document data, its machine-readable zone and the
 * pictures (see SCORES_DOC for the scores and the decision). Deterministic: the same
 * submission on the same day gets the same verdict.
 */
export class RuleBasedKycProvider implements KycProvider {
  readonly name = 'rules';

  async verify(s: KycSubmission, now: Date): Promise<KycVerdict> {
    const today = now.toISOString().slice(0, 10);
    const images = await imageChecks({ document: s.files.document, selfie: s.files.selfie, address: s.files.addressProof });
    const checks = [...documentChecks(s, today), ...checkMrz(s, now), ...images.checks];
    if (s.level === 'advanced') {
      // Nothing here can read an address off a bill: the advanced level always ends with a person.
      checks.push({ name: 'address_proof', passed: false, hard: false, detail: 'A person checks the proof of address' });
    }
    const doc = images.read.get('document')?.facts;
    const selfie = images.read.get('selfie')?.facts;
    const livenessScore = selfie ? round3(captureQuality(selfie)) : 0;
    const distinct = doc && selfie ? Math.min(1, hashDistance(doc.dhash, selfie.dhash) / DISTINCT_DISTANCE) : 0;
    const faceMatchScore = doc && selfie ? round3(Math.min(captureQuality(doc), captureQuality(selfie)) * distinct) : 0;
    const verdict = (outcome: KycVerdict['outcome'], reason: string | null): KycVerdict => ({ outcome, reason, faceMatchScore, livenessScore, checks });

    const hard = checks.filter((c) => c.hard && !c.passed);
    if (hard.length > 0) return verdict('decline', hard.map((c) => c.detail).join('; '));
    const low = Math.min(faceMatchScore, livenessScore);
    if (low < DECLINE_BELOW) return verdict('decline', `The pictures are too blurred or badly lit to verify (score ${low})`);
    const soft = checks.filter((c) => !c.passed);
    if (low < REVIEW_BELOW) return verdict('review', `Borderline picture quality (score ${low}): a person compares the faces`);
    if (soft.length > 0) return verdict('review', soft.map((c) => c.detail).join('; '));
    return verdict('approve', null);
  }
}
