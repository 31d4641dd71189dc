import { ShutdownAbort } from '@pay/runtime';
import { eventually } from '@pay/testing';
import { descriptorDistance, FaceModel } from './face-model';
import { idCard, photo, selfie } from '../../../test/kyc/fixtures';

const handlers = () => ['uncaughtException', 'unhandledRejection'].map((e) => process.listenerCount(e));

it('loads on the first request, in a worker thread; unloads after being idle; loads again for the next request', async () => {
  const faces = new FaceModel({ idleMs: 1500 });
  try {
    expect(faces.loaded).toBe(false);
    const before = handlers();
    const [card, self, none] = await faces.describe([await idCard(), await selfie(), await photo({ width: 480, height: 480 })]);
    expect([faces.loaded, faces.starts]).toEqual([true, 1]);
    expect(card!.descriptor).toHaveLength(128);
    expect(card!.confidence).toBeGreaterThan(0.5);
    expect(descriptorDistance(card!.descriptor, self!.descriptor)).toBeLessThan(0.5);
    expect(none).toBeNull();
    // The WASM runtime's handlers, which end the process on any uncaught error, stay in the worker.
    expect(handlers()).toEqual(before);

    // Requests keep it loaded for longer than idleMs in all; once none came for idleMs, its thread (and memory) is gone.
    const picture = await selfie();
    const first = Date.now();
    let last = first;
    while (last - first < 2 * 1500) {
      await faces.describe([picture]);
      last = Date.now();
      expect([faces.loaded, faces.starts]).toEqual([true, 1]);
    }
    await eventually(() => expect(faces.loaded).toBe(false), 10_000);
    expect(Date.now() - last).toBeGreaterThanOrEqual(1500 - 50); // timers may fire a little early

    const [again] = await faces.describe([await selfie()]);
    expect([faces.loaded, faces.starts]).toEqual([true, 2]);
    expect(descriptorDistance(again!.descriptor, self!.descriptor)).toBe(0); // the same pixels, the same descriptor
  } finally {
    await faces.close();
  }
  expect(faces.loaded).toBe(false);
}, 180_000);

it('close aborts: a request in flight (here the model still loading) and every later one reject at once, and the worker is gone', async () => {
  const faces = new FaceModel({ idleMs: 60_000 });
  const started = Date.now();
  const inFlight = faces.describe([await selfie()]);
  await eventually(() => expect(faces.loaded).toBe(true));
  await faces.close();
  // A shutdown's abort, which hands the check's job back without using an attempt (startWorker).
  await expect(inFlight).rejects.toBeInstanceOf(ShutdownAbort);
  expect(Date.now() - started).toBeLessThan(15_000); // loading alone takes 2-3 s idle, far more under load: close did not wait for it
  expect(faces.loaded).toBe(false);
  await expect(faces.describe([await selfie()])).rejects.toBeInstanceOf(ShutdownAbort);
  expect(faces.starts).toBe(1);
}, 60_000);
