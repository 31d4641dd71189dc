import { describeServiceProcess } from '@pay/testing';

describeServiceProcess('invoicing', {
  // OCR and PDF reading load with the first receipt checked, SMTP with the first e-mail, the
  // queue dashboard with an operator's first visit, sharp with the first KYC picture, the KYC
  // face model (TensorFlow.js, ~350 MB) with the first KYC check, in a worker thread of its
  // own: not at start.
  neverLoads: [
    'sharp',
    'tesseract.js',
    'pdfjs-dist',
    'nodemailer',
    '@bull-board/api',
    '@bull-board/express',
    '@tensorflow/tfjs',
    '@tensorflow/tfjs-core',
    '@tensorflow/tfjs-backend-wasm',
    '@vladmandic/face-api',
  ],
  loadsOnDemand: [{ path: '/docs/assets/swagger-ui.css', package: 'swagger-ui-dist' }] });
