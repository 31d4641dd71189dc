import type { Language } from '../../modules/kyc/schemas';
import type { CardProblemCode } from '../../payments/card';
import type { ReceiptRejection } from '../../modules/receipts/rejections';
import type { PageRefusal } from './refusals';

/**
 * The payment page's texts in the hosted pages' languages (the KYC page's: ru, en, kk), one
 * catalogue per page kept the same way (modules/kyc/i18n.ts is the other). The payer's
 * language comes from the switch on the page (`?lang=`), else from the browser's
 * Accept-Language, English when neither names one of them (src/languages.ts).
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
  /** How much of how much came back. */
  partlyRefundedText: (refunded: string, paid: string) => string;
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
  /** The expiry field's hint (MM/YY in the payer's letters). */
  expiryPlaceholder: string;
  /** Live card payments: the card is typed on the acquirer's own form. */
  acquirerCardForm: string;
  payByCard: (amount: string) => string;
  /** Why a card or a form was refused, in the payer's words (see refusals.ts). */
  card: Record<CardProblemCode, string>;
  chargeCancelled: string;
  refusals: Record<PageRefusal, string>;
  /** The refusal page's headings: nothing here, or something that cannot go on. */
  notFoundTitle: string;
  cannotContinueTitle: string;
  /** Why a receipt was rejected, in the payer's words (see receipts' rejection codes). */
  receiptReasons: Record<ReceiptRejection, (r: { receiptAmount: string | null; receiptDate: string | null }) => string>;
  /** The sandbox bank app's banks, by the form's value (their names stay the values). */
  sandboxBanks: Record<string, string>;
  paidTime: (time: string) => string;
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
  partlyRefundedText: (r, of) => `${r} of ${of} was refunded to you.`,
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
  expiryPlaceholder: 'MM/YY',
  acquirerCardForm: 'You pay on the bank’s secure card form.',
  payByCard: (a) => `Pay ${a} by card`,
  card: {
    NUMBER: 'Check the card number.',
    EXPIRY_FORMAT: 'Enter the expiry date as MM/YY.',
    EXPIRY_MONTH: 'The expiry month must be 01 to 12.',
    EXPIRED: 'The card has expired.',
    CVC: 'The CVC is the 3 or 4 digits on the back of the card.',
  },
  chargeCancelled: 'The card charge was cancelled: no money was taken.',
  refusals: {
    notFound: 'This link does not lead to an invoice or a page of ours. Check the link, or ask the merchant for a new one.',
    brokenLink: 'This link is broken: part of it is missing or mistyped. Open it again from the message you received, or ask the merchant for a new one.',
    badForm: 'The form could not be read. Go back to the invoice and try again.',
    tooMany: 'Too many attempts in a short time. Wait a minute and try again.',
    unavailable: 'The service is briefly unavailable. Try again in a minute.',
    internal: 'Something went wrong on our side. Try again later.',
    fileTooLarge: 'The file is too large. Send a smaller one.',
    fileType: 'This kind of file is not accepted here. Send a JPEG or PNG picture, or a PDF.',
    alreadyPaid: 'This invoice is already paid. Do not pay again.',
    expired: 'This invoice has expired. Ask the merchant for a new one.',
    cancelled: 'The merchant cancelled this invoice.',
    blocked: 'The merchant does not accept payments from you for this invoice. Contact the merchant.',
    kycRequired: 'Verify your identity before paying this invoice.',
    methodUnavailable: 'This way of paying is not available for this invoice.',
    cardDeclined: 'The bank declined the card. No money was taken. Check the details or try another card.',
    bankRefused: 'The bank could not start the payment. No money was taken. Try again in a minute.',
    notNow: 'This cannot be done for this invoice now. Reload the page to see its state.',
  },
  notFoundTitle: 'Not found',
  cannotContinueTitle: 'Cannot continue',
  receiptReasons: {
    UNREADABLE: () => 'The receipt could not be read. Upload a sharp screenshot or the PDF from your bank app.',
    NO_AMOUNT: () => 'No payment amount was found on the receipt. Upload the receipt of this payment from your bank app.',
    NO_DATE: () => 'No payment date was found on the receipt. Upload the receipt of this payment from your bank app.',
    AMOUNT_MISMATCH: (r) => `The receipt shows ${r.receiptAmount ?? 'another amount'}, not the amount of this invoice.`,
    DATE_MISMATCH: (r) => `The receipt is dated ${r.receiptDate ?? 'another day'}, outside the time this invoice could be paid.`,
    DUPLICATE: () => 'This receipt was already uploaded for another invoice: one receipt proves one payment.',
    NOT_PAYABLE: () => 'The receipt matches, but the invoice can no longer be paid. Contact the merchant.',
  },
  sandboxBanks: { 'Sandbox Bank': 'Sandbox Bank', 'Sber (sandbox)': 'Sber (sandbox)', 'T-Bank (sandbox)': 'T-Bank (sandbox)', 'Alfa-Bank (sandbox)': 'Alfa-Bank (sandbox)', 'VTB (sandbox)': 'VTB (sandbox)' },
  paidTime: (t) => `${t} UTC`,
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
  partlyRefundedText: (r, of) => `Вам возвращено ${r} из ${of}.`,
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
  expiryPlaceholder: 'ММ/ГГ',
  acquirerCardForm: 'Оплата проходит на защищённой странице банка.',
  payByCard: (a) => `Оплатить картой ${a}`,
  card: {
    NUMBER: 'Проверьте номер карты.',
    EXPIRY_FORMAT: 'Введите срок действия в виде ММ/ГГ.',
    EXPIRY_MONTH: 'Месяц срока действия — от 01 до 12.',
    EXPIRED: 'Срок действия карты истёк.',
    CVC: 'CVC — это 3 или 4 цифры на обороте карты.',
  },
  chargeCancelled: 'Списание по карте отменено: деньги не взяты.',
  refusals: {
    notFound: 'Эта ссылка не ведёт ни к счёту, ни к нашей странице. Проверьте ссылку или попросите у продавца новую.',
    brokenLink: 'Ссылка повреждена: часть её потеряна или набрана с ошибкой. Откройте её снова из полученного сообщения или попросите у продавца новую.',
    badForm: 'Не удалось прочитать форму. Вернитесь к счёту и попробуйте ещё раз.',
    tooMany: 'Слишком много попыток за короткое время. Подождите минуту и попробуйте снова.',
    unavailable: 'Сервис ненадолго недоступен. Попробуйте через минуту.',
    internal: 'У нас что-то пошло не так. Попробуйте позже.',
    fileTooLarge: 'Файл слишком большой. Отправьте файл поменьше.',
    fileType: 'Такой файл здесь не принимается. Отправьте изображение JPEG или PNG либо PDF.',
    alreadyPaid: 'Этот счёт уже оплачен. Платить ещё раз не нужно.',
    expired: 'Срок счёта истёк. Попросите продавца выставить новый.',
    cancelled: 'Продавец отменил этот счёт.',
    blocked: 'Продавец не принимает от вас оплату этого счёта. Свяжитесь с продавцом.',
    kycRequired: 'Перед оплатой этого счёта подтвердите личность.',
    methodUnavailable: 'Этот способ оплаты недоступен для этого счёта.',
    cardDeclined: 'Банк отклонил карту. Деньги не списаны. Проверьте данные или попробуйте другую карту.',
    bankRefused: 'Банк не смог начать оплату. Деньги не списаны. Попробуйте через минуту.',
    notNow: 'Сейчас это сделать нельзя. Обновите страницу, чтобы увидеть состояние счёта.',
  },
  notFoundTitle: 'Страница не найдена',
  cannotContinueTitle: 'Продолжить нельзя',
  receiptReasons: {
    UNREADABLE: () => 'Не удалось прочитать чек. Загрузите чёткий скриншот или PDF из приложения банка.',
    NO_AMOUNT: () => 'На чеке не найдена сумма оплаты. Загрузите чек этой оплаты из приложения банка.',
    NO_DATE: () => 'На чеке не найдена дата оплаты. Загрузите чек этой оплаты из приложения банка.',
    AMOUNT_MISMATCH: (r) => `На чеке сумма ${r.receiptAmount ?? 'другая'}, а не сумма этого счёта.`,
    DATE_MISMATCH: (r) => `Чек датирован ${r.receiptDate ?? 'другим днём'} — это вне срока оплаты этого счёта.`,
    DUPLICATE: () => 'Этот чек уже загружен для другого счёта: один чек подтверждает одну оплату.',
    NOT_PAYABLE: () => 'Чек совпадает, но счёт уже нельзя оплатить. Свяжитесь с продавцом.',
  },
  sandboxBanks: { 'Sandbox Bank': 'Тестовый банк', 'Sber (sandbox)': 'Сбер (тест)', 'T-Bank (sandbox)': 'Т-Банк (тест)', 'Alfa-Bank (sandbox)': 'Альфа-Банк (тест)', 'VTB (sandbox)': 'ВТБ (тест)' },
  paidTime: (t) => `${t} UTC`,
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
  partlyRefundedText: (r, of) => `Сізге ${of} ішінен ${r} қайтарылды.`,
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
  expiryPlaceholder: 'АА/ЖЖ',
  acquirerCardForm: 'Төлем банктің қорғалған бетінде өтеді.',
  payByCard: (a) => `Картамен төлеу ${a}`,
  card: {
    NUMBER: 'Карта нөмірін тексеріңіз.',
    EXPIRY_FORMAT: 'Жарамдылық мерзімін АА/ЖЖ түрінде енгізіңіз.',
    EXPIRY_MONTH: 'Жарамдылық айы 01-ден 12-ге дейін болуы керек.',
    EXPIRED: 'Картаның мерзімі өтіп кеткен.',
    CVC: 'CVC — картаның артындағы 3 немесе 4 сан.',
  },
  chargeCancelled: 'Картадан есептен шығару тоқтатылды: ақша алынған жоқ.',
  refusals: {
    notFound: 'Бұл сілтеме шотқа да, біздің бетке де апармайды. Сілтемені тексеріңіз немесе сатушыдан жаңасын сұраңыз.',
    brokenLink: 'Сілтеме бүлінген: бір бөлігі жоқ немесе қате терілген. Оны алған хабарламаңыздан қайта ашыңыз немесе сатушыдан жаңасын сұраңыз.',
    badForm: 'Форманы оқу мүмкін болмады. Шотқа оралып, қайта көріңіз.',
    tooMany: 'Қысқа уақытта тым көп әрекет. Бір минут күтіп, қайта көріңіз.',
    unavailable: 'Қызмет уақытша қолжетімсіз. Бір минуттан кейін қайта көріңіз.',
    internal: 'Бізде бірдеңе дұрыс болмады. Кейінірек қайта көріңіз.',
    fileTooLarge: 'Файл тым үлкен. Кішірек файл жіберіңіз.',
    fileType: 'Мұндай файл мұнда қабылданбайды. JPEG не PNG сурет немесе PDF жіберіңіз.',
    alreadyPaid: 'Бұл шот төленіп қойған. Қайта төлемеңіз.',
    expired: 'Шоттың мерзімі өтті. Сатушыдан жаңа шот сұраңыз.',
    cancelled: 'Сатушы бұл шотты тоқтатты.',
    blocked: 'Сатушы бұл шот бойынша сізден төлем қабылдамайды. Сатушыға хабарласыңыз.',
    kycRequired: 'Бұл шотты төлеу алдында жеке басыңызды растаңыз.',
    methodUnavailable: 'Бұл шот үшін мұндай төлем тәсілі қолжетімсіз.',
    cardDeclined: 'Банк картаны қабылдамады. Ақша алынған жоқ. Деректерді тексеріңіз немесе басқа картаны қолданыңыз.',
    bankRefused: 'Банк төлемді бастай алмады. Ақша алынған жоқ. Бір минуттан кейін қайта көріңіз.',
    notNow: 'Қазір мұны істеу мүмкін емес. Шоттың күйін көру үшін бетті жаңартыңыз.',
  },
  notFoundTitle: 'Бет табылмады',
  cannotContinueTitle: 'Жалғастыру мүмкін емес',
  receiptReasons: {
    UNREADABLE: () => 'Түбіртекті оқу мүмкін болмады. Банк қосымшасынан анық скриншот не PDF жүктеңіз.',
    NO_AMOUNT: () => 'Түбіртектен төлем сомасы табылмады. Банк қосымшасынан осы төлемнің түбіртегін жүктеңіз.',
    NO_DATE: () => 'Түбіртектен төлем күні табылмады. Банк қосымшасынан осы төлемнің түбіртегін жүктеңіз.',
    AMOUNT_MISMATCH: (r) => `Түбіртектегі сома ${r.receiptAmount ?? 'басқа'}, бұл шоттың сомасы емес.`,
    DATE_MISMATCH: (r) => `Түбіртектің күні ${r.receiptDate ?? 'басқа күн'}, бұл шотты төлеу мерзімінен тыс.`,
    DUPLICATE: () => 'Бұл түбіртек басқа шот үшін жүктелген: бір түбіртек бір төлемді растайды.',
    NOT_PAYABLE: () => 'Түбіртек сәйкес келеді, бірақ шотты енді төлеу мүмкін емес. Сатушыға хабарласыңыз.',
  },
  sandboxBanks: { 'Sandbox Bank': 'Сынақ банкі', 'Sber (sandbox)': 'Сбер (сынақ)', 'T-Bank (sandbox)': 'Т-Банк (сынақ)', 'Alfa-Bank (sandbox)': 'Альфа-Банк (сынақ)', 'VTB (sandbox)': 'ВТБ (сынақ)' },
  paidTime: (t) => `${t} UTC`,
};

export const PAY_TEXTS: Record<Language, PayTexts> = { en, ru, kk };
