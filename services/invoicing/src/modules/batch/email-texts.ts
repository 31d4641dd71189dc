import type { BrandLanguage } from '@pay/accounts';

/** The payment link e-mail's words, per payer language; `amount` is already formatted for it, `name` is the merchant's display name. */
export interface EmailTexts {
  subject(amount: string, name: string): string;
  hello: string;
  invoice(amount: string, name: string): string;
  pay: string;
  validUntil(until: string): string;
  replies(name: string): string;
}

export const EMAIL_TEXTS: Record<BrandLanguage, EmailTexts> = {
  ru: {
    subject: (amount, name) => `Счёт на ${amount} от ${name}`,
    hello: 'Здравствуйте!',
    invoice: (amount, name) => `${name} выставляет вам счёт на ${amount}`,
    pay: 'Оплатить счёт',
    validUntil: (until) => `Ссылка действует до ${until}.`,
    replies: (name) => `Ответ на это письмо получит ${name}.`,
  },
  en: {
    subject: (amount, name) => `Invoice for ${amount} from ${name}`,
    hello: 'Hello,',
    invoice: (amount, name) => `${name} has sent you an invoice for ${amount}`,
    pay: 'Pay the invoice',
    validUntil: (until) => `The link is valid until ${until}.`,
    replies: (name) => `Replies to this e-mail go to ${name}.`,
  },
  kk: {
    subject: (amount, name) => `${name}: ${amount} сомасына шот`,
    hello: 'Сәлеметсіз бе!',
    invoice: (amount, name) => `${name} сізге ${amount} сомасына шот жіберді`,
    pay: 'Шотты төлеу',
    validUntil: (until) => `Сілтеме ${until} дейін жарамды.`,
    replies: (name) => `Бұл хатқа жауапты ${name} алады.`,
  },
};
