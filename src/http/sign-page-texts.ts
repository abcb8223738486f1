/**
 * The texts of the signing page (issue 6: `en-US` and `nl-NL`; decisions.md §2: the signer's `Language`, else the
 * transaction's; other languages fall back to `en-US`). One table per language with the same keys; the page's
 * script receives the table as a data attribute, so no text lives in the browser code.
 */

/** Every text of the page. */
export interface SignPageTexts {
  readonly lang: string;
  readonly title: string;
  readonly brand: string;
  readonly loading: string;
  readonly greeting: string;
  readonly intro: string;
  readonly reference: string;
  readonly documents: string;
  readonly page: string;
  readonly pages: string;
  readonly onePage: string;
  readonly fieldsToFill: string;
  readonly required: string;
  readonly fieldOnPage: string;
  readonly stepsHeading: string;
  readonly stepOf: string;
  readonly consentHeading: string;
  readonly consentLabel: string;
  readonly confirm: string;
  readonly scribbleHeading: string;
  readonly scribbleHelp: string;
  readonly drawTab: string;
  readonly typeTab: string;
  readonly padLabel: string;
  readonly clear: string;
  readonly undo: string;
  readonly nameLabel: string;
  readonly typedHelp: string;
  readonly useSignature: string;
  readonly drawFirst: string;
  readonly phoneHeading: string;
  readonly emailHeading: string;
  readonly codeSendTo: string;
  readonly sendCode: string;
  readonly resendCode: string;
  readonly codeSent: string;
  readonly codeLabel: string;
  readonly verify: string;
  readonly stepDone: string;
  readonly readyHeading: string;
  readonly readyText: string;
  readonly sign: string;
  readonly signing: string;
  readonly reject: string;
  readonly rejectHeading: string;
  readonly rejectReasonLabel: string;
  readonly rejectConfirm: string;
  readonly cancel: string;
  readonly signedHeading: string;
  readonly signedText: string;
  readonly signedAllText: string;
  readonly toSteps: string;
  readonly rejectedHeading: string;
  readonly rejectedText: string;
  readonly redirecting: string;
  readonly continue: string;
  readonly waitingHeading: string;
  readonly waitingText: string;
  readonly notStartedHeading: string;
  readonly notStartedText: string;
  readonly endedHeading: string;
  readonly processingHeading: string;
  readonly processingText: string;
  readonly errorHeading: string;
  readonly secureNote: string;
  readonly yes: string;
  readonly externalHeading: string;
  readonly externalButton: string;
}

const EN: SignPageTexts = {
  lang: 'en-US',
  title: 'Sign documents',
  brand: 'Secure signing',
  loading: 'Loading your documents…',
  greeting: 'Hello {name}',
  intro: 'Please review the documents below. When you are ready, complete the steps and sign.',
  reference: 'Reference',
  documents: 'Documents',
  page: 'Page {n} of {total}',
  pages: '{n} pages',
  onePage: '1 page',
  fieldsToFill: 'Fields to fill in',
  required: 'required',
  fieldOnPage: 'page {n}',
  stepsHeading: 'Confirm and sign',
  stepOf: 'Step {n} of {total}',
  consentHeading: 'Your consent',
  consentLabel: 'I have read the documents and agree to sign them electronically.',
  confirm: 'Confirm',
  scribbleHeading: 'Your signature',
  scribbleHelp: 'Draw your signature in the box with your mouse, finger or pen.',
  drawTab: 'Draw',
  typeTab: 'Type',
  padLabel: 'Signature drawing area',
  clear: 'Clear',
  undo: 'Undo',
  nameLabel: 'Full name',
  typedHelp: 'Your typed name will be used as your signature.',
  useSignature: 'Use this signature',
  drawFirst: 'Draw your signature first.',
  phoneHeading: 'Verify your phone number',
  emailHeading: 'Verify your e-mail address',
  codeSendTo: 'We will send a 6-digit code to {to}.',
  sendCode: 'Send code',
  resendCode: 'Send a new code',
  codeSent: 'A code was sent to {to}. It is valid for 10 minutes.',
  codeLabel: '6-digit code',
  verify: 'Verify',
  stepDone: 'Done',
  readyHeading: 'Ready to sign',
  readyText: 'By clicking Sign, you sign all documents shown above.',
  sign: 'Sign',
  signing: 'Signing… this takes a few seconds.',
  reject: 'Reject',
  rejectHeading: 'Reject the documents',
  rejectReasonLabel: 'Why do you reject? The sender will see your reason.',
  rejectConfirm: 'Reject documents',
  cancel: 'Cancel',
  signedHeading: 'Thank you, you have signed',
  signedText: 'Your signature has been applied. You will receive the signed documents when everyone has signed.',
  signedAllText: 'Your signature has been applied and everyone has signed. The documents are complete.',
  toSteps: 'Go to the signing steps',
  rejectedHeading: 'You have rejected the documents',
  rejectedText: 'The sender has been informed.',
  redirecting: 'You are being redirected…',
  continue: 'Continue',
  waitingHeading: 'It is not your turn yet',
  waitingText: 'You can sign after {names} signed. You will be notified.',
  notStartedHeading: 'Not available yet',
  notStartedText: 'This signing request has not been sent yet.',
  endedHeading: 'This signing request has ended',
  processingHeading: 'Processing',
  processingText: 'The documents are being processed. Reload this page in a moment.',
  errorHeading: 'Something went wrong',
  secureNote: 'Your signature is applied with a certificate issued for you and sealed against changes.',
  yes: 'Yes',
  externalHeading: 'Confirm your identity with {type}',
  externalButton: 'Continue to {type}',
};

const NL: SignPageTexts = {
  lang: 'nl-NL',
  title: 'Documenten ondertekenen',
  brand: 'Veilig ondertekenen',
  loading: 'Uw documenten worden geladen…',
  greeting: 'Hallo {name}',
  intro: 'Lees de documenten hieronder. Als u klaar bent, doorloopt u de stappen en ondertekent u.',
  reference: 'Kenmerk',
  documents: 'Documenten',
  page: 'Pagina {n} van {total}',
  pages: "{n} pagina's",
  onePage: '1 pagina',
  fieldsToFill: 'In te vullen velden',
  required: 'verplicht',
  fieldOnPage: 'pagina {n}',
  stepsHeading: 'Bevestigen en ondertekenen',
  stepOf: 'Stap {n} van {total}',
  consentHeading: 'Uw toestemming',
  consentLabel: 'Ik heb de documenten gelezen en ga akkoord met elektronisch ondertekenen.',
  confirm: 'Bevestigen',
  scribbleHeading: 'Uw handtekening',
  scribbleHelp: 'Teken uw handtekening in het vak met uw muis, vinger of pen.',
  drawTab: 'Tekenen',
  typeTab: 'Typen',
  padLabel: 'Tekenvak voor uw handtekening',
  clear: 'Wissen',
  undo: 'Ongedaan maken',
  nameLabel: 'Volledige naam',
  typedHelp: 'Uw getypte naam wordt als handtekening gebruikt.',
  useSignature: 'Deze handtekening gebruiken',
  drawFirst: 'Teken eerst uw handtekening.',
  phoneHeading: 'Bevestig uw telefoonnummer',
  emailHeading: 'Bevestig uw e-mailadres',
  codeSendTo: 'We sturen een code van 6 cijfers naar {to}.',
  sendCode: 'Code versturen',
  resendCode: 'Nieuwe code versturen',
  codeSent: 'Er is een code verstuurd naar {to}. Deze is 10 minuten geldig.',
  codeLabel: 'Code van 6 cijfers',
  verify: 'Controleren',
  stepDone: 'Gereed',
  readyHeading: 'Klaar om te ondertekenen',
  readyText: 'Door op Ondertekenen te klikken, ondertekent u alle documenten hierboven.',
  sign: 'Ondertekenen',
  signing: 'Bezig met ondertekenen… dit duurt enkele seconden.',
  reject: 'Weigeren',
  rejectHeading: 'De documenten weigeren',
  rejectReasonLabel: 'Waarom weigert u? De afzender ziet uw reden.',
  rejectConfirm: 'Documenten weigeren',
  cancel: 'Annuleren',
  signedHeading: 'Bedankt, u heeft ondertekend',
  signedText: 'Uw handtekening is geplaatst. U ontvangt de ondertekende documenten zodra iedereen heeft getekend.',
  signedAllText: 'Uw handtekening is geplaatst en iedereen heeft getekend. De documenten zijn compleet.',
  toSteps: 'Naar de stappen om te ondertekenen',
  rejectedHeading: 'U heeft de documenten geweigerd',
  rejectedText: 'De afzender is op de hoogte gebracht.',
  redirecting: 'U wordt doorgestuurd…',
  continue: 'Verder',
  waitingHeading: 'U bent nog niet aan de beurt',
  waitingText: 'U kunt ondertekenen nadat {names} heeft getekend. U krijgt bericht.',
  notStartedHeading: 'Nog niet beschikbaar',
  notStartedText: 'Dit ondertekenverzoek is nog niet verstuurd.',
  endedHeading: 'Dit ondertekenverzoek is beëindigd',
  processingHeading: 'Bezig met verwerken',
  processingText: 'De documenten worden verwerkt. Laad deze pagina zo opnieuw.',
  errorHeading: 'Er ging iets mis',
  secureNote: 'Uw handtekening wordt geplaatst met een certificaat dat voor u is uitgegeven en beschermd tegen wijzigingen.',
  yes: 'Ja',
  externalHeading: 'Bevestig uw identiteit met {type}',
  externalButton: 'Verder naar {type}',
};

/** The texts for `language`: `nl-*` Dutch, everything else English (decisions.md §2). */
export function signPageTexts(language: string | undefined): SignPageTexts {
  return language?.toLowerCase().startsWith('nl') ? NL : EN;
}
