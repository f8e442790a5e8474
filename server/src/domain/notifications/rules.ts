import { AppError } from '../errors.js';
import { ALL } from '../cloud/providers.js';
import { characterCount } from '../text.js';
import { NOTIFICATION_EVENTS, type NotificationEvent } from './types.js';
import { PRIVATE_TARGET_RULE, isPrivateAddress, literalAddress } from './webhook-targets.js';

/** The bounds the public service's clients check (reference sheet §8), enforced here for every caller. */
export const MAX_NAME_LENGTH = 250;
export const MAX_EMAILS = 100;
export const MIN_SECRET_LENGTH = 16;
export const MAX_SECRET_LENGTH = 256;

export function checkName(value: string): string {
  const name = value.trim();
  if (name.length === 0) throw AppError.invalid('name', 'must not be blank');
  if (characterCount(name) > MAX_NAME_LENGTH) throw AppError.invalid('name', `must be at most ${MAX_NAME_LENGTH} characters`);
  return name;
}

function checkUnique(field: string, values: readonly string[], key: (value: string) => string = (v) => v): void {
  const seen = new Set<string>();
  for (const value of values) {
    if (seen.has(key(value))) throw AppError.invalid(field, `lists '${value}' twice`);
    seen.add(key(value));
  }
}

export function checkEvents(values: readonly string[]): NotificationEvent[] {
  if (values.length === 0) throw AppError.invalid('events', 'must name at least one of compliance, drift, remediation');
  values.forEach((value, i) => {
    if (!(NOTIFICATION_EVENTS as readonly string[]).includes(value)) {
      throw AppError.invalid(`events[${i}]`, `must be one of ${NOTIFICATION_EVENTS.join(', ')}`);
    }
  });
  checkUnique('events', values);
  return values as NotificationEvent[];
}

/** `['*']` watches every environment; otherwise a list of environment ids, compared in lower case. */
export function parseEnvironments(values: readonly string[]): { all: true } | { all: false; ids: string[] } {
  if (values.length === 0) throw AppError.invalid('environments', "must name at least one environment id, or '*'");
  if (values.includes(ALL)) {
    if (values.length > 1) throw AppError.invalid('environments', "'*' stands for all environments and must be the only entry");
    return { all: true };
  }
  const ids = values.map((v) => v.toLowerCase());
  checkUnique('environments', ids);
  return { all: false, ids };
}

// Deliberately loose: the SMTP server is the judge of an address; this catches what cannot be one.
const EMAIL = /^[^\s@<>,;"]+@[^\s@<>,;"]+$/;

export function checkEmails(values: readonly string[]): string[] {
  if (values.length > MAX_EMAILS) throw AppError.invalid('emails', `must list at most ${MAX_EMAILS} addresses`);
  values.forEach((value, i) => {
    if (!EMAIL.test(value)) throw AppError.invalid(`emails[${i}]`, `'${value}' is not an email address`);
  });
  checkUnique('emails', values, (v) => v.toLowerCase());
  return [...values];
}

/** An http(s) URL; unless `allowPrivate`, not one whose host is a loopback, private or link-local IP address. */
export function checkWebhookUrl(value: string, allowPrivate = false): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw AppError.invalid('webhook_url', 'must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw AppError.invalid('webhook_url', 'must be an http:// or https:// URL');
  const address = literalAddress(url);
  if (!allowPrivate && address !== undefined && isPrivateAddress(address)) {
    throw AppError.invalid('webhook_url', `${address} is not a public address (loopback, private, link-local or another special-purpose range): ${PRIVATE_TARGET_RULE}`);
  }
  return value;
}

export function checkWebhookSecret(value: string): string {
  if (characterCount(value) < MIN_SECRET_LENGTH) throw AppError.invalid('webhook_secret', `must be at least ${MIN_SECRET_LENGTH} characters long`);
  if (characterCount(value) > MAX_SECRET_LENGTH) throw AppError.invalid('webhook_secret', `must be at most ${MAX_SECRET_LENGTH} characters long`);
  return value;
}
