import { describeServiceProcess } from '@pay/testing';

describeServiceProcess('invoicing', {
  // OCR and PDF reading load with the first receipt checked, not at start; the KYC face model
  // (TensorFlow.js, ~350 MB) with the first KYC check, in a worker thread of its own.
  neverLoads: ['tesseract.js', 'pdfjs-dist', '@tensorflow/tfjs', '@tensorflow/tfjs-core', '@tensorflow/tfjs-backend-wasm', '@vladmandic/face-api'],
  loadsOnDemand: [{ path: '/docs/assets/swagger-ui.css', package: 'swagger-ui-dist' }] });
