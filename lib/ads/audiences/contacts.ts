import { hash } from "node:crypto";

/**
 * CRM contacts as the platform matches them: each field normalised by the platform's rules, then SHA-256
 * hashed. This is the only place that sees raw contact values; everything after it (the upload, the
 * database, logs, responses) handles hashes or counts. Normalising is idempotent, so a value that is
 * already normalised gives the same hash again.
 */

export const CONTACT_FIELDS = ["email", "phone", "first_name", "last_name", "city", "zip", "country", "date_of_birth"] as const;
type ContactField = (typeof CONTACT_FIELDS)[number];
export type Contact = Partial<Record<ContactField, string>>;

/** Graph's multi-key schema, in the order of every uploaded row (`payload.schema`). */
export const MATCH_SCHEMA = ["EMAIL", "PHONE", "FN", "LN", "CT", "ZIP", "COUNTRY", "DOBY", "DOBM", "DOBD"] as const;
type MatchKey = (typeof MATCH_SCHEMA)[number];

/** Calling codes used to complete a national number (leading trunk `0`) from the contact's `country`. */
const CALLING_CODES: Readonly<Record<string, string>> = {
  de: "49",
  at: "43",
  ch: "41",
  li: "423",
  lu: "352",
  nl: "31",
  be: "32",
  fr: "33",
  it: "39",
  es: "34",
  pt: "351",
  pl: "48",
  cz: "420",
  dk: "45",
  se: "46",
  no: "47",
  fi: "358",
  gb: "44",
  ie: "353",
  us: "1",
  ca: "1",
};
/** Countries whose numbers never keep the trunk `0` after the calling code (`+49 (0)171…`, `+43 0664…`). */
const TRUNK_ZERO_DROPPED = ["49", "43", "41", "423"];

const regionNames = new Intl.DisplayNames(["en"], { type: "region", fallback: "code" });

/** Lower case in composed form: upper-casing can decompose a letter (ῒ), so compose again afterwards. */
function folded(raw: string): string {
  return raw.normalize("NFC").toLowerCase().normalize("NFC");
}

/** Lower case, Unicode letters only (umlauts and accents kept, in composed form); `null` when none remain. */
function letters(raw: string): string | null {
  const out = folded(raw)
    .replace(/[^\p{L}\p{M}]/gu, "")
    .normalize("NFC");
  return out === "" ? null : out;
}

function normaliseEmail(raw: string): string | null {
  const value = folded(raw.trim());
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) ? value : null;
}

/** At most 26 × 26 entries: whether a two-letter code is a region. */
const knownRegions = new Map<string, boolean>();

function normaliseCountry(raw: string): string | null {
  const value = raw.trim().toLowerCase();
  if (!/^[a-z]{2}$/.test(value)) return null;
  let known = knownRegions.get(value);
  if (known === undefined) {
    // A well-formed code the region table does not know comes back as the code itself.
    known = regionNames.of(value.toUpperCase()) !== value.toUpperCase();
    knownRegions.set(value, known);
  }
  return known ? value : null;
}

/**
 * Digits with the country code, no `+`, no leading `00`, no trunk `0`. `+49 (0)171 123` and `0049 171 123`
 * are international; `0171 123` is national and completed from `country` (refused without one, or with a
 * country we hold no calling code for); bare digits are taken as already carrying the country code.
 */
export function normalisePhone(raw: string, country: string | null): string | null {
  const text = raw.normalize("NFKC").trim();
  if (/[\p{L}]/u.test(text)) return null;
  const withoutTrunkMarker = text.replace(/\(\s*0\s*\)/g, "");
  const digits = withoutTrunkMarker.replace(/\D/g, "");
  let international: string;
  if (withoutTrunkMarker.startsWith("+")) international = digits;
  else if (digits.startsWith("00")) international = digits.slice(2);
  else if (digits.startsWith("0")) {
    const code = country ? CALLING_CODES[country] : undefined;
    if (!code) return null;
    international = code + digits.replace(/^0+/, "");
  } else international = digits;
  for (const code of TRUNK_ZERO_DROPPED) {
    if (international.startsWith(`${code}0`)) international = code + international.slice(code.length).replace(/^0+/, "");
  }
  return /^[1-9]\d{6,14}$/.test(international) ? international : null;
}

function normaliseZip(raw: string): string | null {
  const value = folded(raw)
    .replace(/[^\p{L}\p{N}]/gu, "")
    .normalize("NFC");
  return value === "" ? null : value;
}

/** `YYYY-MM-DD`, a real calendar date from 1900 up to `today`. */
function normaliseDateOfBirth(raw: string, today: Date): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw.trim());
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  if (year < 1900 || date.getTime() > today.getTime()) return null;
  return raw.trim();
}

export type NormalisedContact = {
  /** Normalised values of the fields that were given and valid. */
  values: Contact;
  /** Fields that were given but could not be normalised (names only, never values). */
  invalid: ContactField[];
  /** A row can be matched only by an e-mail address or a phone number. */
  usable: boolean;
};

/** Each given field normalised on its own; an empty or blank field counts as not given. */
export function normaliseContact(contact: Contact, today: Date): NormalisedContact {
  const values: Contact = {};
  const invalid: ContactField[] = [];
  const country = contact.country?.trim() ? normaliseCountry(contact.country) : null;
  const rules: Record<ContactField, (raw: string) => string | null> = {
    email: normaliseEmail,
    phone: (raw) => normalisePhone(raw, country),
    first_name: letters,
    last_name: letters,
    city: letters,
    zip: normaliseZip,
    country: normaliseCountry,
    date_of_birth: (raw) => normaliseDateOfBirth(raw, today),
  };
  for (const field of CONTACT_FIELDS) {
    const raw = contact[field];
    if (raw === undefined || raw.trim() === "") continue;
    const value = rules[field](raw);
    if (value === null) invalid.push(field);
    else values[field] = value;
  }
  return { values, invalid, usable: values.email !== undefined || values.phone !== undefined };
}

export function sha256(value: string): string {
  return hash("sha256", value, "hex");
}

/**
 * Country and birth-date parts take a few hundred values in all, so their hashes are kept (bounded by
 * construction: 26 × 26 codes, years 1900–now, 12 months, 31 days); identifying fields are always hashed anew.
 */
const lowCardinalityHashes = new Map<string, string>();
function sha256Memo(value: string): string {
  let digest = lowCardinalityHashes.get(value);
  if (digest === undefined) {
    digest = sha256(value);
    lowCardinalityHashes.set(value, digest);
  }
  return digest;
}
const MEMO_KEYS: ReadonlySet<MatchKey> = new Set(["COUNTRY", "DOBY", "DOBM", "DOBD"]);

/** One row of `payload.data` in `MATCH_SCHEMA` order: a hash per present key, `""` for the absent ones. */
export function hashedRow(values: Contact): string[] {
  const dob = values.date_of_birth?.split("-");
  const plain: Record<MatchKey, string | undefined> = {
    EMAIL: values.email,
    PHONE: values.phone,
    FN: values.first_name,
    LN: values.last_name,
    CT: values.city,
    ZIP: values.zip,
    COUNTRY: values.country,
    DOBY: dob?.[0],
    DOBM: dob?.[1],
    DOBD: dob?.[2],
  };
  return MATCH_SCHEMA.map((key) => {
    const value = plain[key];
    if (value === undefined) return "";
    return MEMO_KEYS.has(key) ? sha256Memo(value) : sha256(value);
  });
}

type InvalidContact = { index: number; fields: ContactField[] };

export type PreparedContacts = {
  rows: string[][];
  /** Contacts not sent: nothing to match them by. Indexes into the request's list, with the fields at fault. */
  skipped: InvalidContact[];
  /** Contacts sent with some fields left out because they could not be normalised. */
  partial: InvalidContact[];
};

/** Normalise and hash a request's contacts; raw values go no further than this function. */
export function prepareContacts(contacts: readonly Contact[], today: Date): PreparedContacts {
  const rows: string[][] = [];
  const skipped: InvalidContact[] = [];
  const partial: InvalidContact[] = [];
  contacts.forEach((contact, index) => {
    const normalised = normaliseContact(contact, today);
    if (!normalised.usable) {
      const fields = normalised.invalid.length > 0 ? normalised.invalid : (["email", "phone"] as ContactField[]);
      skipped.push({ index, fields });
      return;
    }
    if (normalised.invalid.length > 0) partial.push({ index, fields: normalised.invalid });
    rows.push(hashedRow(normalised.values));
  });
  return { rows, skipped, partial };
}
