import { describeServiceProcess } from '@pay/testing';

describeServiceProcess('invoicing', {
  // OCR and PDF reading load with the first receipt checked, SMTP with the first e-mail, not at start.
  neverLoads: ['tesseract.js', 'pdfjs-dist', 'nodemailer'],
  loadsOnDemand: [{ path: '/docs/assets/swagger-ui.css', package: 'swagger-ui-dist' }] });
