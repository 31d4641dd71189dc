import { MIN_IMAGE_SIDE } from '../../engines/vision/images';
import type { DeclineReason, Language } from './schemas';

const SIDE = `${MIN_IMAGE_SIDE}×${MIN_IMAGE_SIDE}`;

/** Every text of the verification page, in the session's language (v2 `language`, v1 `locale`). */
export interface KycTexts {
  title: string;
  intro: string;
  testMode: string;
  photos: string;
  documentPhoto: string;
  documentPhotoHint: string;
  selfie: string;
  selfieHint: string;
  addressProof: string;
  documentData: string;
  documentType: string;
  passport: string;
  idCard: string;
  documentNumber: string;
  documentCountry: string;
  lastName: string;
  firstName: string;
  middleName: string;
  dateOfBirth: string;
  documentIssuedAt: string;
  documentExpiresAt: string;
  mrz: string;
  mrzHint: string;
  submit: string;
  checking: string;
  review: string;
  approved: string;
  approvedText: string;
  declined: string;
  declinedText: string;
  /** What the customer is told of a decline: what to do better, nothing of how the check works. */
  declineReasons: Record<DeclineReason, string>;
  /** A declined attempt with attempts left: the heading, the count, and the action. */
  retryTitle: string;
  attemptsLeft: string;
  tryAgain: string;
  expired: string;
  continue: string;
  problem: string;
  expiresIn: string;
  /** The language switch's name. */
  language: string;
  /** What each form field needs, said when it was refused (submission.ts checks them). */
  fieldProblems: Record<KycFormField, string>;
  /** The documents were sent already: nothing to send again. */
  alreadySent: string;
}

/** The fields the form's checks name (submission.ts), the files among them. */
export type KycFormField =
  | 'documentNumber' | 'documentCountry' | 'firstName' | 'lastName' | 'middleName' | 'dateOfBirth' | 'documentIssuedAt' | 'documentExpiresAt' | 'mrz'
  | 'document' | 'selfie' | 'addressProof';

const en: KycTexts = {
  title: 'Identity verification',
  intro: 'Photograph your identity document, take a selfie, and enter the document data. It takes a couple of minutes.',
  testMode: 'TEST MODE',
  photos: 'Photos',
  documentPhoto: 'Document photo',
  documentPhotoHint: 'The page with your photo, all corners visible, no glare.',
  selfie: 'Selfie',
  selfieHint: 'Your face, well lit, looking at the camera.',
  addressProof: 'Proof of address (utility bill or bank statement: photo or PDF)',
  documentData: 'Document data',
  documentType: 'Document',
  passport: 'Passport',
  idCard: 'ID card',
  documentNumber: 'Document number',
  documentCountry: 'Issuing country (3 letters, e.g. KAZ, RUS)',
  lastName: 'Last name',
  firstName: 'First name',
  middleName: 'Middle name (if any)',
  dateOfBirth: 'Date of birth',
  documentIssuedAt: 'Date of issue',
  documentExpiresAt: 'Valid until',
  mrz: 'Machine-readable zone (optional)',
  mrzHint: 'We read the 2 or 3 lines with <<< off your photo; type them only if they are cut off or blurred.',
  submit: 'Send for verification',
  checking: 'We are checking your documents. This page updates by itself.',
  review: 'A specialist is reviewing your documents. This page updates by itself.',
  approved: 'Verified',
  approvedText: 'Your identity is confirmed.',
  declined: 'Not verified',
  declinedText: 'We could not confirm your identity.',
  declineReasons: {
    DOCUMENT_EXPIRED: 'The document has expired. Use a valid one.',
    DOCUMENT_DATA_INVALID: 'The document dates do not look right. Check what you entered.',
    DOCUMENT_DATA_MISMATCH: 'What you entered does not match the document. Check each field against it.',
    UNDERAGE: 'You must be of age to be verified.',
    IMAGE_UNREADABLE: 'A picture could not be read. Send a JPEG or PNG photo.',
    IMAGE_TOO_SMALL: `A picture is too small: at least ${SIDE} pixels is needed. Take the photo with your phone's camera, not a thumbnail or screenshot.`,
    IMAGE_QUALITY: 'A picture is too dark, blurred or small. Take it again in good light.',
    SAME_IMAGE_TWICE: 'The document photo and the selfie are the same picture. Take a selfie of your face.',
    FACE_NOT_FOUND: 'No face was found in a picture. Make sure your face is fully visible.',
    FACE_MISMATCH: 'The selfie does not match the document photo.',
    DECLINED_BY_REVIEWER: 'A specialist could not confirm your identity from what you sent.',
    OTHER: 'Your documents could not be accepted.',
  },
  retryTitle: 'Your documents were not accepted this time',
  attemptsLeft: 'Attempts left',
  tryAgain: 'Try again',
  expired: 'This verification link has expired. Ask the merchant for a new one.',
  continue: 'Continue',
  problem: 'Please check the form',
  expiresIn: 'Link valid until',
  language: 'Language',
  fieldProblems: {
    documentNumber: 'letters and digits, 5 to 20 of them',
    documentCountry: 'three letters, e.g. KAZ, RUS',
    firstName: 'required, in letters',
    lastName: 'required, in letters',
    middleName: 'letters only',
    dateOfBirth: 'a date',
    documentIssuedAt: 'a date',
    documentExpiresAt: 'a date',
    mrz: 'the 2 or 3 lines at the bottom of the page (A–Z, 0–9, <)',
    document: 'a photo is needed',
    selfie: 'a photo is needed',
    addressProof: 'a photo or PDF is needed',
  },
  alreadySent: 'Your documents were already sent. This page shows how the check goes.',
};

const ru: KycTexts = {
  title: 'Проверка личности',
  intro: 'Сфотографируйте документ, удостоверяющий личность, сделайте селфи и введите данные документа. Это займёт пару минут.',
  testMode: 'ТЕСТОВЫЙ РЕЖИМ',
  photos: 'Фотографии',
  documentPhoto: 'Фото документа',
  documentPhotoHint: 'Страница с фотографией, видны все углы, без бликов.',
  selfie: 'Селфи',
  selfieHint: 'Ваше лицо при хорошем освещении, взгляд в камеру.',
  addressProof: 'Подтверждение адреса (квитанция ЖКХ или выписка из банка: фото или PDF)',
  documentData: 'Данные документа',
  documentType: 'Документ',
  passport: 'Паспорт',
  idCard: 'Удостоверение личности',
  documentNumber: 'Номер документа',
  documentCountry: 'Страна выдачи (три буквы, например KAZ, RUS)',
  lastName: 'Фамилия',
  firstName: 'Имя',
  middleName: 'Отчество (если есть)',
  dateOfBirth: 'Дата рождения',
  documentIssuedAt: 'Дата выдачи',
  documentExpiresAt: 'Действителен до',
  mrz: 'Машиночитаемая зона (необязательно)',
  mrzHint: 'Строки с <<< мы прочитаем с фото; введите их, только если они обрезаны или размыты.',
  submit: 'Отправить на проверку',
  checking: 'Проверяем ваши документы. Страница обновится сама.',
  review: 'Ваши документы проверяет специалист. Страница обновится сама.',
  approved: 'Личность подтверждена',
  approvedText: 'Проверка пройдена.',
  declined: 'Проверка не пройдена',
  declinedText: 'Не удалось подтвердить вашу личность.',
  declineReasons: {
    DOCUMENT_EXPIRED: 'Срок действия документа истёк. Используйте действующий.',
    DOCUMENT_DATA_INVALID: 'Даты документа указаны неверно. Проверьте введённые данные.',
    DOCUMENT_DATA_MISMATCH: 'Введённые данные не совпадают с документом. Сверьте каждое поле.',
    UNDERAGE: 'Для проверки нужно быть совершеннолетним.',
    IMAGE_UNREADABLE: 'Не удалось прочитать снимок. Отправьте фото в формате JPEG или PNG.',
    IMAGE_TOO_SMALL: `Снимок слишком маленький: нужно не меньше ${SIDE} пикселей. Сфотографируйте камерой телефона, а не отправляйте миниатюру или снимок экрана.`,
    IMAGE_QUALITY: 'Снимок слишком тёмный, размытый или маленький. Переснимите при хорошем освещении.',
    SAME_IMAGE_TWICE: 'Фото документа и селфи — один и тот же снимок. Сделайте селфи своего лица.',
    FACE_NOT_FOUND: 'На снимке не найдено лицо. Лицо должно быть видно полностью.',
    FACE_MISMATCH: 'Селфи не совпадает с фото в документе.',
    DECLINED_BY_REVIEWER: 'Специалист не смог подтвердить вашу личность по присланным данным.',
    OTHER: 'Документы не удалось принять.',
  },
  retryTitle: 'На этот раз документы не приняты',
  attemptsLeft: 'Осталось попыток',
  tryAgain: 'Попробовать снова',
  expired: 'Срок действия ссылки истёк. Запросите новую у продавца.',
  continue: 'Продолжить',
  problem: 'Проверьте форму',
  expiresIn: 'Ссылка действует до',
  language: 'Язык',
  fieldProblems: {
    documentNumber: 'буквы и цифры, от 5 до 20',
    documentCountry: 'три буквы, например KAZ, RUS',
    firstName: 'обязательно, буквами',
    lastName: 'обязательно, буквами',
    middleName: 'только буквы',
    dateOfBirth: 'нужна дата',
    documentIssuedAt: 'нужна дата',
    documentExpiresAt: 'нужна дата',
    mrz: '2 или 3 строки внизу страницы документа (латинские буквы, цифры и <)',
    document: 'нужна фотография',
    selfie: 'нужна фотография',
    addressProof: 'нужна фотография или PDF',
  },
  alreadySent: 'Документы уже отправлены. На этой странице видно, как идёт проверка.',
};

const kk: KycTexts = {
  title: 'Жеке басты растау',
  intro: 'Жеке басты куәландыратын құжаттың суретін түсіріп, селфи жасаңыз және құжат деректерін енгізіңіз. Бұл бірнеше минут алады.',
  testMode: 'СЫНАҚ РЕЖИМІ',
  photos: 'Суреттер',
  documentPhoto: 'Құжаттың суреті',
  documentPhotoHint: 'Фотосуретіңіз бар беті, барлық бұрыштары көрінеді, жылтырсыз.',
  selfie: 'Селфи',
  selfieHint: 'Жақсы жарықтағы бетіңіз, камераға қараңыз.',
  addressProof: 'Мекенжайды растау (коммуналдық түбіртек немесе банк үзіндісі: сурет немесе PDF)',
  documentData: 'Құжат деректері',
  documentType: 'Құжат',
  passport: 'Төлқұжат',
  idCard: 'Жеке куәлік',
  documentNumber: 'Құжат нөмірі',
  documentCountry: 'Берген ел (үш әріп, мысалы KAZ, RUS)',
  lastName: 'Тегі',
  firstName: 'Аты',
  middleName: 'Әкесінің аты (бар болса)',
  dateOfBirth: 'Туған күні',
  documentIssuedAt: 'Берілген күні',
  documentExpiresAt: 'Жарамдылық мерзімі',
  mrz: 'Машинамен оқылатын аймақ (міндетті емес)',
  mrzHint: '<<< бар жолдарды фотодан оқимыз; олар кесілген не бұлыңғыр болса ғана енгізіңіз.',
  submit: 'Тексеруге жіберу',
  checking: 'Құжаттарыңызды тексеріп жатырмыз. Бұл бет өздігінен жаңарады.',
  review: 'Құжаттарыңызды маман қарап жатыр. Бұл бет өздігінен жаңарады.',
  approved: 'Расталды',
  approvedText: 'Жеке басыңыз расталды.',
  declined: 'Расталмады',
  declinedText: 'Жеке басыңызды растау мүмкін болмады.',
  declineReasons: {
    DOCUMENT_EXPIRED: 'Құжаттың мерзімі өтіп кеткен. Жарамды құжатты пайдаланыңыз.',
    DOCUMENT_DATA_INVALID: 'Құжаттың күндері дұрыс емес. Енгізілген деректерді тексеріңіз.',
    DOCUMENT_DATA_MISMATCH: 'Енгізілген деректер құжатқа сәйкес келмейді. Әр өрісті тексеріңіз.',
    UNDERAGE: 'Тексеруден өту үшін кәмелетке толу керек.',
    IMAGE_UNREADABLE: 'Суретті оқу мүмкін болмады. JPEG немесе PNG фотосын жіберіңіз.',
    IMAGE_TOO_SMALL: `Сурет тым кішкентай: кемінде ${SIDE} пиксель қажет. Кішірейтілген сурет не скриншот емес, телефон камерасымен түсіріңіз.`,
    IMAGE_QUALITY: 'Сурет тым қараңғы, бұлыңғыр немесе кішкентай. Жақсы жарықта қайта түсіріңіз.',
    SAME_IMAGE_TWICE: 'Құжат фотосы мен селфи бір сурет. Өз бетіңізді селфиге түсіріңіз.',
    FACE_NOT_FOUND: 'Суретте бет табылмады. Бетіңіз толық көрінуі керек.',
    FACE_MISMATCH: 'Селфи құжаттағы фотоға сәйкес келмейді.',
    DECLINED_BY_REVIEWER: 'Маман жіберілген деректер бойынша жеке басыңызды растай алмады.',
    OTHER: 'Құжаттарды қабылдау мүмкін болмады.',
  },
  retryTitle: 'Бұл жолы құжаттар қабылданбады',
  attemptsLeft: 'Қалған әрекеттер',
  tryAgain: 'Қайталап көру',
  expired: 'Бұл сілтеменің мерзімі өтті. Сатушыдан жаңасын сұраңыз.',
  continue: 'Жалғастыру',
  problem: 'Форманы тексеріңіз',
  expiresIn: 'Сілтеме жарамды',
  language: 'Тіл',
  fieldProblems: {
    documentNumber: 'әріптер мен сандар, 5-тен 20-ға дейін',
    documentCountry: 'үш әріп, мысалы KAZ, RUS',
    firstName: 'міндетті, әріптермен',
    lastName: 'міндетті, әріптермен',
    middleName: 'тек әріптер',
    dateOfBirth: 'күні қажет',
    documentIssuedAt: 'күні қажет',
    documentExpiresAt: 'күні қажет',
    mrz: 'құжат бетінің төменгі 2 не 3 жолы (латын әріптері, сандар және <)',
    document: 'сурет қажет',
    selfie: 'сурет қажет',
    addressProof: 'сурет не PDF қажет',
  },
  alreadySent: 'Құжаттар жіберіліп қойған. Бұл бетте тексерудің барысы көрінеді.',
};

export const KYC_TEXTS: Record<Language, KycTexts> = { en, ru, kk };
