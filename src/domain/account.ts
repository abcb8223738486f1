/** An API account (decisions.md §9). Keys are stored hashed (SHA-256 hex of the key as sent). */
export interface Account {
  Id: string;
  Name: string;
  UserTokenHash: string;
  AppKeyHash: string;
  /** Shared secret of the postback Checksum and HMAC (decisions.md §7). */
  PostbackSecret?: string;
  /** Response version of postback bodies (decisions.md §2); default 1. */
  PostbackVersion?: 1 | 2;
  /** Where sender notifications go (transactions with `SendEmailNotifications`, decisions.md §7); none without it. */
  NotificationEmail?: string;
  CreatedDateTime: string;
}
