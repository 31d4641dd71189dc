import { describeServiceProcess } from '@pay/testing';

describeServiceProcess('invoicing', {
  // OCR and PDF reading load with the first receipt checked, not at start.
  neverLoads: ['tesseract.js', 'pdfjs-dist'],
  loadsOnDemand: [{ path: '/docs/assets/swagger-ui.css', package: 'swagger-ui-dist' }] });
