import { describeServiceProcess } from '@pay/testing';

describeServiceProcess('invoicing', {
  // OCR and PDF reading load with the first receipt checked, SMTP with the first e-mail, the
  // queue dashboard with an operator's first visit: not at start.
  neverLoads: ['tesseract.js', 'pdfjs-dist', 'nodemailer', '@bull-board/api', '@bull-board/express'],
  loadsOnDemand: [{ path: '/docs/assets/swagger-ui.css', package: 'swagger-ui-dist' }] });
