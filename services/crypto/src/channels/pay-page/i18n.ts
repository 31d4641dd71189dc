import { html, negotiateLanguage, type LanguageRequest, type SafeHtml } from '@pay/http';

/**
 * The crypto payment page's texts in the hosted pages' languages (ru, en, kk: the fiat and KYC
 * pages' too). The payer's language comes from `?lang=` (the switch on the page), else from the
 * browser's Accept-Language, else the merchant's default language.
 *
 * Statuses are written out for people ("Частично оплачен"), never the API's words
 * ("PartiallyPaid"); proper names (networks, tokens, the address) stay as they are and are
 * marked `translate="no"` where the page shows them.
 */
export const LANGUAGES = ['ru', 'en', 'kk'] as const;
export type Language = (typeof LANGUAGES)[number];

/** What the page says of the invoice: its status as the payer should read it. */
export type PageState = 'waiting' | 'partial' | 'paid' | 'underpaid' | 'expired';

export interface CryptoPageTexts {
  /** The document's title. */
  pay: (amount: string) => string;
  testModeBadge: string;
  testModeNotice: string;
  states: Record<PageState, string>;
  status: string;
  amount: string;
  received: string;
  awaiting: string;
  due: string;
  network: string;
  address: string;
  expiresIn: string;
  validUntil: string;
  paidAt: string;
  /** The amount and network come marked up (proper names, not translated). */
  sendExactly: (amount: SafeHtml, network: SafeHtml) => SafeHtml;
  copy: string;
  copyAddress: string;
  copyAmount: string;
  copied: string;
  /** The clipboard refused: the value is selected for the payer to copy by hand. */
  copyFailed: string;
  qrAlt: string;
  openWallet: string;
  allOnItsWay: string;
  paidText: string;
  closePage: string;
  doNotPay: string;
  expiredText: string;
  alreadyPaid: (merchant: string) => string;
  /** Expired while a transfer sent in time still waits for its confirmations. */
  expiredConfirming: string;
  underpaidText: (merchant: string) => string;
  notFoundTitle: string;
  notFoundText: string;
  brokenLinkText: string;
  tooManyTitle: string;
  tooManyText: string;
  errorTitle: string;
  errorText: string;
  language: string;
  liveUpdates: string;
}

const en: CryptoPageTexts = {
  pay: (a) => `Pay ${a}`,
  testModeBadge: 'TEST MODE: no real funds',
  testModeNotice:
    'Test mode: this invoice is on no real network, and nothing sent to this address on one would ever arrive. It is paid through the sandbox API (POST /api/v1/sandbox/transactions).',
  states: { waiting: 'Awaiting payment', partial: 'Partially paid', paid: 'Paid', underpaid: 'Underpaid', expired: 'Expired' },
  status: 'Status',
  amount: 'Amount',
  received: 'Received',
  awaiting: 'On its way, awaiting confirmations',
  due: 'Still due',
  network: 'Network',
  address: 'Address',
  expiresIn: 'Expires in',
  validUntil: 'Valid until',
  paidAt: 'Paid on',
  sendExactly: (a, n) => html`Send exactly ${a} on ${n} to this address:`,
  copy: 'Copy',
  copyAddress: 'Copy address',
  copyAmount: 'Copy amount',
  copied: 'Copied',
  copyFailed: 'Could not copy automatically. The text is selected: copy it by hand.',
  qrAlt: 'QR code of the payment for your wallet app',
  openWallet: 'Open in wallet',
  allOnItsWay: 'Everything due is on its way: the invoice is paid once it is confirmed. Do not pay again.',
  paidText: 'Payment received.',
  closePage: 'You can close this page.',
  doNotPay: 'Do not pay this invoice',
  expiredText: 'This invoice has expired. Do not send anything to its address: a payment sent now is not credited to the invoice.',
  alreadyPaid: (m) => `If you have already sent a payment, keep its transaction hash and contact ${m}. Ask them for a new invoice if you still want to pay.`,
  expiredConfirming: 'This invoice has expired, but a payment you sent in time is awaiting its confirmations: it counts once confirmed. Do not send anything more.',
  underpaidText: (m) => `The invoice expired before the full amount arrived. What you sent was received: contact ${m} to settle the rest or get it back. Do not send anything more to this address.`,
  notFoundTitle: 'Invoice not found',
  notFoundText: 'This link does not lead to an invoice. Check the link, or ask the shop for a new one.',
  brokenLinkText: 'This link is broken or incomplete. Open the link the shop sent you again, or ask for a new one.',
  tooManyTitle: 'Too many requests',
  tooManyText: 'Please wait a minute, then reload the page.',
  errorTitle: 'Something went wrong',
  errorText: 'The page cannot be shown right now. Please try again in a minute.',
  language: 'Language',
  liveUpdates: 'This page updates by itself.',
};

const ru: CryptoPageTexts = {
  pay: (a) => `Оплата ${a}`,
  testModeBadge: 'ТЕСТОВЫЙ РЕЖИМ: без настоящих средств',
  testModeNotice:
    'Тестовый режим: этот счёт не относится ни к одной настоящей сети, и ничего, отправленное на этот адрес в настоящей сети, не поступит. Он оплачивается в тестовой среде продавца.',
  states: { waiting: 'Ожидает оплаты', partial: 'Частично оплачен', paid: 'Оплачен', underpaid: 'Оплачен не полностью', expired: 'Срок истёк' },
  status: 'Статус',
  amount: 'Сумма',
  received: 'Получено',
  awaiting: 'В пути, ждёт подтверждений',
  due: 'Осталось оплатить',
  network: 'Сеть',
  address: 'Адрес',
  expiresIn: 'Действует ещё',
  validUntil: 'Действует до',
  paidAt: 'Оплачен',
  sendExactly: (a, n) => html`Отправьте ровно ${a} в сети ${n} на этот адрес:`,
  copy: 'Копировать',
  copyAddress: 'Копировать адрес',
  copyAmount: 'Копировать сумму',
  copied: 'Скопировано',
  copyFailed: 'Не удалось скопировать автоматически. Текст выделен: скопируйте его вручную.',
  qrAlt: 'QR-код оплаты для приложения кошелька',
  openWallet: 'Открыть в кошельке',
  allOnItsWay: 'Вся сумма уже в пути: счёт будет оплачен после подтверждения. Больше не платите.',
  paidText: 'Оплата получена.',
  closePage: 'Страницу можно закрыть.',
  doNotPay: 'Не оплачивайте этот счёт',
  expiredText: 'Срок счёта истёк. Ничего не отправляйте на его адрес: оплата, отправленная сейчас, не будет засчитана.',
  alreadyPaid: (m) => `Если вы уже отправили оплату, сохраните хеш транзакции и свяжитесь с продавцом (${m}). Если всё ещё хотите оплатить, попросите новый счёт.`,
  expiredConfirming: 'Срок счёта истёк, но оплата, отправленная вовремя, ждёт подтверждений: она будет засчитана после подтверждения. Больше ничего не отправляйте.',
  underpaidText: (m) => `Срок счёта истёк раньше, чем пришла вся сумма. Отправленное вами получено: свяжитесь с продавцом (${m}), чтобы доплатить или вернуть деньги. Больше ничего не отправляйте на этот адрес.`,
  notFoundTitle: 'Счёт не найден',
  notFoundText: 'Эта ссылка не ведёт к счёту. Проверьте ссылку или попросите у магазина новую.',
  brokenLinkText: 'Ссылка повреждена или неполная. Откройте ещё раз ссылку, которую прислал магазин, или попросите новую.',
  tooManyTitle: 'Слишком много запросов',
  tooManyText: 'Подождите минуту и обновите страницу.',
  errorTitle: 'Что-то пошло не так',
  errorText: 'Страницу сейчас не удаётся показать. Попробуйте через минуту.',
  language: 'Язык',
  liveUpdates: 'Страница обновляется сама.',
};

const kk: CryptoPageTexts = {
  pay: (a) => `Төлем ${a}`,
  testModeBadge: 'СЫНАҚ РЕЖИМІ: нақты қаражатсыз',
  testModeNotice:
    'Сынақ режимі: бұл шот ешбір нақты желіге жатпайды, нақты желіде осы мекенжайға жіберілген ештеңе түспейді. Ол сатушының сынақ ортасында төленеді.',
  states: { waiting: 'Төлем күтілуде', partial: 'Ішінара төленді', paid: 'Төленді', underpaid: 'Толық төленбеді', expired: 'Мерзімі өтті' },
  status: 'Күйі',
  amount: 'Сомасы',
  received: 'Алынды',
  awaiting: 'Жолда, растауларды күтуде',
  due: 'Төлеу қалды',
  network: 'Желі',
  address: 'Мекенжай',
  expiresIn: 'Жарамдылық мерзімі',
  validUntil: 'Жарамды',
  paidAt: 'Төленді',
  sendExactly: (a, n) => html`Дәл ${a} сомасын ${n} желісінде осы мекенжайға жіберіңіз:`,
  copy: 'Көшіру',
  copyAddress: 'Мекенжайды көшіру',
  copyAmount: 'Соманы көшіру',
  copied: 'Көшірілді',
  copyFailed: 'Автоматты түрде көшіру мүмкін болмады. Мәтін белгіленді: оны қолмен көшіріңіз.',
  qrAlt: 'Әмиян қосымшасына арналған төлемнің QR коды',
  openWallet: 'Әмиянда ашу',
  allOnItsWay: 'Бүкіл сома жолда: шот расталғаннан кейін төленеді. Қайта төлемеңіз.',
  paidText: 'Төлем алынды.',
  closePage: 'Бұл бетті жабуға болады.',
  doNotPay: 'Бұл шотты төлемеңіз',
  expiredText: 'Шоттың мерзімі өтті. Оның мекенжайына ештеңе жібермеңіз: қазір жіберілген төлем есептелмейді.',
  alreadyPaid: (m) => `Егер төлемді жіберіп қойсаңыз, транзакция хешін сақтап, сатушыға (${m}) хабарласыңыз. Әлі төлегіңіз келсе, жаңа шот сұраңыз.`,
  expiredConfirming: 'Шоттың мерзімі өтті, бірақ уақытында жіберілген төлем растауларды күтуде: ол расталғаннан кейін есептеледі. Басқа ештеңе жібермеңіз.',
  underpaidText: (m) => `Бүкіл сома түскенше шоттың мерзімі өтті. Сіз жіберген сома алынды: қалғанын төлеу немесе қайтару үшін сатушыға (${m}) хабарласыңыз. Бұл мекенжайға басқа ештеңе жібермеңіз.`,
  notFoundTitle: 'Шот табылмады',
  notFoundText: 'Бұл сілтеме шотқа апармайды. Сілтемені тексеріңіз немесе дүкеннен жаңасын сұраңыз.',
  brokenLinkText: 'Сілтеме бүлінген немесе толық емес. Дүкен жіберген сілтемені қайта ашыңыз немесе жаңасын сұраңыз.',
  tooManyTitle: 'Сұраулар тым көп',
  tooManyText: 'Бір минут күтіп, бетті жаңартыңыз.',
  errorTitle: 'Бірдеңе дұрыс болмады',
  errorText: 'Бетті қазір көрсету мүмкін емес. Бір минуттан кейін қайталап көріңіз.',
  language: 'Тіл',
  liveUpdates: 'Бет өздігінен жаңарады.',
};

export const TEXTS: Record<Language, CryptoPageTexts> = { ru, en, kk };

/** The BCP 47 locale of dates (Intl.DateTimeFormat), per page language. */
export const LOCALES: Record<Language, string> = { ru: 'ru-RU', en: 'en-GB', kk: 'kk-KZ' };

/** The page's language: `?lang=`, else Accept-Language, else `fallback` (the merchant's default, or Russian); @pay/http's negotiation, which invoicing's pages share. */
export function pageLanguage(req: LanguageRequest, fallback: Language = 'ru'): { language: Language; chosen: boolean } {
  const { language, chosen } = negotiateLanguage(LANGUAGES, req, { fallback });
  return { language, chosen: chosen !== undefined };
}
