/** An API account (docs/design/api.md#authentication). Keys are stored hashed (SHA-256 hex of the key as sent). */
export interface Account {
  Id: string;
  Name: string;
  UserTokenHash: string;
  AppKeyHash: string;
  /** Shared secret of the postback Checksum and HMAC (docs/design/events.md#checksum). */
  PostbackSecret?: string;
  /** Response version of postback bodies (docs/design/api.md#versions); default 1. */
  PostbackVersion?: 1 | 2;
  /**
   * Where sender notifications go (transactions with `SendEmailNotifications`, docs/design/events.md#mail); none
   * without it.
   */
  NotificationEmail?: string;
  CreatedDateTime: string;
}
