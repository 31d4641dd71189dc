import { eventually } from '@pay/testing';
import { descriptorDistance, FaceModel } from './face-model';
import { idCard, photo, selfie } from '../../test/kyc/fixtures';

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

    // Requests keep it loaded; once none came for idleMs, its thread (and memory) is gone.
    await new Promise((r) => setTimeout(r, 1000));
    await faces.describe([await selfie()]);
    await new Promise((r) => setTimeout(r, 1000));
    expect(faces.loaded).toBe(true);
    await eventually(() => expect(faces.loaded).toBe(false), 10_000);

    const [again] = await faces.describe([await selfie()]);
    expect([faces.loaded, faces.starts]).toEqual([true, 2]);
    expect(descriptorDistance(again!.descriptor, self!.descriptor)).toBe(0); // the same pixels, the same descriptor
  } finally {
    await faces.close();
  }
  expect(faces.loaded).toBe(false);
}, 180_000);
