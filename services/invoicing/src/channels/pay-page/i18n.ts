import { LANGUAGES, type Language } from '../../modules/kyc/schemas';

/**
 * The payment page's texts in the hosted pages' languages (the KYC page's: ru, en, kk).
 * The payer's language comes from the switch on the page (`?lang=`), else from the
 * browser's Accept-Language; English when neither names one of them.
 */
export interface PayTexts {
  testMode: string;
  pay: (amount: string) => string;
  expiresIn: string;
  awaiting: string;
  paid: string;
  paidText: string;
  paidOn: string;
  closePage: string;
  backToShop: string;
  expired: string;
  expiredText: string;
  cancelled: string;
  cancelledText: string;
  refunded: string;
  refundedText: string;
  partlyRefunded: string;
  partlyRefundedText: (amount: string) => string;
  declinedText: string;
  tryAgain: string;
  underReview: string;
  underReviewText: string;
  paymentReceived: string;
  paymentReceivedText: string;
  cardNumber: string;
  expiry: string;
  cvc: string;
  qrAlt: string;
  scanHint: string;
  openBank: string;
  kycRequired: string;
  verifyIdentity: string;
  receiptTitle: string;
  receiptAsk: string;
  /** The same once the payment is received: only the receipt is missing. */
  receiptAskPaid: string;
  receiptChecking: string;
  receiptRejected: string;
  receiptAnother: string;
  receiptAccepted: string;
  receiptFile: string;
  uploadReceipt: string;
  sandboxBank: string;
  sandboxTitle: (amount: string) => string;
  noRealMoney: string;
  yourBank: string;
  confirmTransfer: string;
  backToInvoice: string;
  language: string;
}

const en: PayTexts = {
  testMode: 'TEST MODE',
  pay: (a) => `Pay ${a}`,
  expiresIn: 'Expires in',
  awaiting: 'Awaiting payment',
  paid: 'PAID',
  paidText: 'Payment received',
  paidOn: 'on',
  closePage: 'You can close this page.',
  backToShop: 'Back to the shop',
  expired: 'EXPIRED',
  expiredText: 'This invoice has expired. Ask the merchant for a new one.',
  cancelled: 'CANCELLED',
  cancelledText: 'The merchant cancelled this invoice.',
  refunded: 'REFUNDED',
  refundedText: 'The payment was refunded in full. The money goes back to your card or account; your bank may take a few days.',
  partlyRefunded: 'PARTLY REFUNDED',
  partlyRefundedText: (a) => `${a} of this payment was refunded to you.`,
  declinedText: 'Your last payment was declined by the bank. No money was taken. You can try again.',
  tryAgain: 'Try again',
  underReview: 'UNDER REVIEW',
  underReviewText: 'Your payment is being checked by the merchant. You do not need to pay again; this page will change once it is decided.',
  paymentReceived: 'PAYMENT RECEIVED',
  paymentReceivedText: 'Your payment has been received. Do not pay again: upload the receipt from your bank app below, and the payment counts once it is checked.',
  cardNumber: 'Card number',
  expiry: 'Expiry',
  cvc: 'CVC',
  qrAlt: 'SBP QR code: scan it with your bank app',
  scanHint: 'Scan with your bank app, or on this phone:',
  openBank: 'Pay in bank app',
  kycRequired: 'Identity verification (KYC) is required before this invoice can be paid.',
  verifyIdentity: 'Verify your identity',
  receiptTitle: 'Payment receipt',
  receiptAsk: 'After paying, upload the receipt from your bank app (a screenshot or PDF): the payment counts once it is checked.',
  receiptAskPaid: 'Upload the receipt from your bank app (a screenshot or PDF).',
  receiptChecking: 'Your receipt is being checked…',
  receiptRejected: 'Your receipt was not accepted:',
  receiptAnother: 'Upload another one.',
  receiptAccepted: 'Your receipt was accepted.',
  receiptFile: 'Receipt (PNG, JPEG or PDF)',
  uploadReceipt: 'Upload receipt',
  sandboxBank: 'Sandbox bank app (SBP)',
  sandboxTitle: (a) => `Sandbox bank: ${a}`,
  noRealMoney: 'NO REAL MONEY',
  yourBank: 'Your bank',
  confirmTransfer: 'Confirm transfer',
  backToInvoice: 'Back to the invoice',
  language: 'Language',
};

const ru: PayTexts = {
  testMode: 'ТЕСТОВЫЙ РЕЖИМ',
  pay: (a) => `Оплатить ${a}`,
  expiresIn: 'Действует ещё',
  awaiting: 'Ожидает оплаты',
  paid: 'ОПЛАЧЕН',
  paidText: 'Оплата получена',
  paidOn: '',
  closePage: 'Страницу можно закрыть.',
  backToShop: 'Вернуться в магазин',
  expired: 'ИСТЁК',
  expiredText: 'Срок счёта истёк. Попросите продавца выставить новый.',
  cancelled: 'ОТМЕНЁН',
  cancelledText: 'Продавец отменил этот счёт.',
  refunded: 'ВОЗВРАТ',
  refundedText: 'Оплата возвращена полностью. Деньги вернутся на карту или счёт; банку может понадобиться несколько дней.',
  partlyRefunded: 'ЧАСТИЧНЫЙ ВОЗВРАТ',
  partlyRefundedText: (a) => `Вам возвращено ${a} из этой оплаты.`,
  declinedText: 'Банк отклонил последнюю оплату. Деньги не списаны. Можно попробовать ещё раз.',
  tryAgain: 'Попробовать ещё раз',
  underReview: 'НА ПРОВЕРКЕ',
  underReviewText: 'Продавец проверяет вашу оплату. Платить ещё раз не нужно; страница изменится, когда решение будет принято.',
  paymentReceived: 'ОПЛАТА ПОЛУЧЕНА',
  paymentReceivedText: 'Ваша оплата получена. Платить ещё раз не нужно: загрузите ниже чек из приложения банка, и оплата будет засчитана после его проверки.',
  cardNumber: 'Номер карты',
  expiry: 'Срок действия',
  cvc: 'CVC',
  qrAlt: 'QR-код СБП: отсканируйте его в приложении банка',
  scanHint: 'Отсканируйте в приложении банка или оплатите на этом телефоне:',
  openBank: 'Оплатить в приложении банка',
  kycRequired: 'Перед оплатой этого счёта нужно подтвердить личность (KYC).',
  verifyIdentity: 'Подтвердить личность',
  receiptTitle: 'Чек об оплате',
  receiptAsk: 'После оплаты загрузите чек из приложения банка (скриншот или PDF): оплата засчитывается после его проверки.',
  receiptAskPaid: 'Загрузите чек из приложения банка (скриншот или PDF).',
  receiptChecking: 'Проверяем ваш чек…',
  receiptRejected: 'Чек не принят:',
  receiptAnother: 'Загрузите другой.',
  receiptAccepted: 'Чек принят.',
  receiptFile: 'Чек (PNG, JPEG или PDF)',
  uploadReceipt: 'Загрузить чек',
  sandboxBank: 'Тестовое приложение банка (СБП)',
  sandboxTitle: (a) => `Тестовый банк: ${a}`,
  noRealMoney: 'БЕЗ НАСТОЯЩИХ ДЕНЕГ',
  yourBank: 'Ваш банк',
  confirmTransfer: 'Подтвердить перевод',
  backToInvoice: 'Вернуться к счёту',
  language: 'Язык',
};

const kk: PayTexts = {
  testMode: 'СЫНАҚ РЕЖИМІ',
  pay: (a) => `Төлеу ${a}`,
  expiresIn: 'Жарамдылық мерзімі',
  awaiting: 'Төлем күтілуде',
  paid: 'ТӨЛЕНДІ',
  paidText: 'Төлем алынды',
  paidOn: '',
  closePage: 'Бұл бетті жабуға болады.',
  backToShop: 'Дүкенге оралу',
  expired: 'МЕРЗІМІ ӨТТІ',
  expiredText: 'Шоттың мерзімі өтті. Сатушыдан жаңа шот сұраңыз.',
  cancelled: 'ТОҚТАТЫЛДЫ',
  cancelledText: 'Сатушы бұл шотты тоқтатты.',
  refunded: 'ҚАЙТАРЫЛДЫ',
  refundedText: 'Төлем толық қайтарылды. Ақша картаңызға немесе шотыңызға қайтады; банкке бірнеше күн қажет болуы мүмкін.',
  partlyRefunded: 'ІШІНАРА ҚАЙТАРЫЛДЫ',
  partlyRefundedText: (a) => `Бұл төлемнен сізге ${a} қайтарылды.`,
  declinedText: 'Банк соңғы төлемді қабылдамады. Ақша алынған жоқ. Қайта көруге болады.',
  tryAgain: 'Қайта көру',
  underReview: 'ТЕКСЕРІЛУДЕ',
  underReviewText: 'Сатушы төлеміңізді тексеріп жатыр. Қайта төлеудің қажеті жоқ; шешім қабылданғанда бұл бет өзгереді.',
  paymentReceived: 'ТӨЛЕМ АЛЫНДЫ',
  paymentReceivedText: 'Төлеміңіз алынды. Қайта төлемеңіз: төменде банк қосымшасынан түбіртекті жүктеңіз, төлем тексерілгеннен кейін есептеледі.',
  cardNumber: 'Карта нөмірі',
  expiry: 'Жарамдылық мерзімі',
  cvc: 'CVC',
  qrAlt: 'СБП QR коды: оны банк қосымшасында сканерлеңіз',
  scanHint: 'Банк қосымшасында сканерлеңіз немесе осы телефонда төлеңіз:',
  openBank: 'Банк қосымшасында төлеу',
  kycRequired: 'Бұл шотты төлеу үшін алдымен жеке басыңызды растау (KYC) қажет.',
  verifyIdentity: 'Жеке басты растау',
  receiptTitle: 'Төлем түбіртегі',
  receiptAsk: 'Төлегеннен кейін банк қосымшасынан түбіртекті жүктеңіз (скриншот немесе PDF): төлем тексерілгеннен кейін есептеледі.',
  receiptAskPaid: 'Банк қосымшасынан түбіртекті жүктеңіз (скриншот немесе PDF).',
  receiptChecking: 'Түбіртегіңіз тексерілуде…',
  receiptRejected: 'Түбіртек қабылданбады:',
  receiptAnother: 'Басқасын жүктеңіз.',
  receiptAccepted: 'Түбіртек қабылданды.',
  receiptFile: 'Түбіртек (PNG, JPEG немесе PDF)',
  uploadReceipt: 'Түбіртекті жүктеу',
  sandboxBank: 'Сынақ банк қосымшасы (СБП)',
  sandboxTitle: (a) => `Сынақ банкі: ${a}`,
  noRealMoney: 'НАҚТЫ АҚШАСЫЗ',
  yourBank: 'Сіздің банкіңіз',
  confirmTransfer: 'Аударымды растау',
  backToInvoice: 'Шотқа оралу',
  language: 'Тіл',
};

export const PAY_TEXTS: Record<Language, PayTexts> = { en, ru, kk };

/** Each language's name in itself, for the switch. */
export const LANGUAGE_NAMES: Record<Language, string> = { ru: 'Русский', en: 'English', kk: 'Қазақша' };

/** The locale amounts are formatted in (Intl.NumberFormat), per page language. */
export const LOCALES: Record<Language, string> = { ru: 'ru-RU', en: 'en-US', kk: 'kk-KZ' };

const isLanguage = (s: string): s is Language => (LANGUAGES as readonly string[]).includes(s);

/** `kz` (the country, which v1 KYC uses) means Kazakh too. */
const normalise = (tag: string): string => {
  const primary = tag.trim().toLowerCase().split('-')[0]!;
  return primary === 'kz' ? 'kk' : primary;
};

/**
 * The page's language: the switch's `?lang=` if it names one of ours, else the first of
 * Accept-Language's languages (by q, then order) that we speak, else English.
 */
export function pageLanguage(chosen: string | undefined, acceptLanguage: string | undefined): Language {
  if (chosen && isLanguage(normalise(chosen))) return normalise(chosen) as Language;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, order) => {
      const [tag, ...params] = part.split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
      return { language: normalise(tag ?? ''), q: q ? Number(q[1]) : 1, order };
    })
    .filter((l) => l.q > 0 && isLanguage(l.language))
    .sort((a, b) => b.q - a.q || a.order - b.order);
  return (ranked[0]?.language as Language | undefined) ?? 'en';
}

/** The language of a page request, and the `?lang=` its forms and links keep when the payer chose it. */
export function requestLanguage(req: { query: unknown; headers: { 'accept-language'?: string } }): { language: Language; langQuery: string } {
  const lang = (req.query as Record<string, unknown>).lang;
  const chosen = typeof lang === 'string' && isLanguage(normalise(lang)) ? (normalise(lang) as Language) : undefined;
  return { language: chosen ?? pageLanguage(undefined, req.headers['accept-language']), langQuery: chosen ? `?lang=${chosen}` : '' };
}
