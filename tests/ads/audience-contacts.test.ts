import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CONTACT_FIELDS, hashedRow, normaliseContact, normalisePhone, prepareContacts, sha256, type Contact } from "../../lib/ads/audiences/contacts";

const today = new Date("2026-01-15T10:00:00Z");

/** Computed outside this code base (`printf '%s' 'x@y.de' | sha256sum`), pasted as constants. */
const KNOWN = {
  "x@y.de": "731cea21d3242f1d658dfd5265051e85c12b1e620e74b2c823e2abd858a17b8b",
  "anna.mueller@example.de": "54567eb5273b1a9db66db4eaad44ebfd630cc85837b6ba1752a5a3681109ece2",
  "491711234567": "7e25b7844dc82e53d76a507d7f6130832c805e097c1e038793c36ce22c358132",
  "436641234567": "0b60fe3cf98f87947655f7c799b2167389267b04623c9c1f1c9c5de9c109c67d",
  "41791234567": "641b2674c7b3d41f0c5167c163c845f3d899639ebc622d0d3b4632abeb14e6b0",
  müller: "2dbd218072117713f2d5996a726a9b216ed791ffd0783b6ba4ab6d61b8333192",
  anna: "55579b557896d0ce1764c47fed644f9b35f58bad620674af23f356d80ed0c503",
  münchen: "f75c175f552c8b2bf46ef4b282ee782c81cf8687f66a8fe8278cc56fa727503e",
  zürich: "201f10d5d64518d86d2d3a47d28675d1c788762c5345df643dadec71d4e0a91e",
  "80331": "55eb98af205c9d17e3569de62916a94b7944672c772f526e6e4c957c0b8d5eeb",
  de: "959a45d44e6fcf58361ed004681556fe50129f2109e817dec098c00c9e5d2578",
  "1985": "78e370b587b145920213731b7c7c725e512b3b6577c51c800218a7c764c532ae",
  "04": "6cd5b6e51936a442b973660c21553dd22bd72ddc8751132a943475288113b4c0",
  "07": "19b100ab7725c612f3d80ff203ca53cea5cadaafae3bf0f88f0fb4089fe08815",
} as const;

describe("known-answer hashes", () => {
  test("a whole row matches hashes computed independently", () => {
    const { values, invalid } = normaliseContact(
      {
        email: "  Anna.Mueller@Example.DE ",
        phone: "+49 (0)171 123 45 67",
        first_name: "Anna",
        last_name: "MÜLLER",
        city: "München",
        zip: "80331",
        country: "DE",
        date_of_birth: "1985-04-07",
      },
      today,
    );
    expect(invalid).toEqual([]);
    expect(hashedRow(values)).toEqual([
      KNOWN["anna.mueller@example.de"],
      KNOWN["491711234567"],
      KNOWN.anna,
      KNOWN.müller,
      KNOWN.münchen,
      KNOWN["80331"],
      KNOWN.de,
      KNOWN["1985"],
      KNOWN["04"],
      KNOWN["07"],
    ]);
  });

  test.each([
    ["x@y.de", "X@Y.DE"],
    ["x@y.de", "\t x@y.de \n"],
  ])("e-mail %s from %j", (expected, raw) => {
    expect(hashedRow(normaliseContact({ email: raw }, today).values)[0]).toBe(KNOWN[expected as keyof typeof KNOWN]);
  });

  test.each([
    ["491711234567", "+49 171 1234567", undefined],
    ["491711234567", "0049 171 1234567", undefined],
    ["491711234567", "+49 (0)171 1234567", undefined],
    ["491711234567", "+49 0171 1234567", undefined],
    ["491711234567", "0171 / 123 45 67", "DE"],
    ["491711234567", "491711234567", undefined],
    ["436641234567", "0664 1234567", "at"],
    ["436641234567", "+43 (0)664 123 4567", undefined],
    ["41791234567", "079 123 45 67", "CH"],
  ])("phone %s from %j (country %s)", (expected, raw, country) => {
    const contact: Contact = { phone: raw, ...(country && { country }) };
    expect(hashedRow(normaliseContact(contact, today).values)[1]).toBe(KNOWN[expected as keyof typeof KNOWN]);
  });

  test("names and cities keep their umlauts, composed or not", () => {
    for (const raw of ["Müller", "MÜLLER", "Mu\u0308ller", " müller-", "Mül ler"]) {
      expect(hashedRow(normaliseContact({ email: "x@y.de", last_name: raw }, today).values)[3], raw).toBe(KNOWN.müller);
    }
    expect(hashedRow(normaliseContact({ email: "x@y.de", city: "Zu\u0308rich" }, today).values)[4]).toBe(KNOWN.zürich);
  });
});

describe("refused values", () => {
  test.each([
    ["a national number without a country", { phone: "0171 1234567" }, ["phone"]],
    ["a national number with a country we have no calling code for", { phone: "0171 1234567", country: "jp" }, ["phone"]],
    ["letters in a phone number", { phone: "+49 call me" }, ["phone"]],
    ["a phone number too short", { phone: "+49 12" }, ["phone"]],
    ["a malformed e-mail", { email: "not an address" }, ["email"]],
    ["an unknown country code", { email: "x@y.de", country: "XX" }, ["country"]],
    ["a country name instead of a code", { email: "x@y.de", country: "Germany" }, ["country"]],
    ["an impossible date", { email: "x@y.de", date_of_birth: "1985-02-30" }, ["date_of_birth"]],
    ["a date in another format", { email: "x@y.de", date_of_birth: "07.04.1985" }, ["date_of_birth"]],
    ["a birth date in the future", { email: "x@y.de", date_of_birth: "2030-01-01" }, ["date_of_birth"]],
    ["a name of digits only", { email: "x@y.de", first_name: "123" }, ["first_name"]],
  ])("%s", (_label, contact, fields) => {
    expect(normaliseContact(contact as Contact, today).invalid).toEqual(fields);
  });

  test("a contact is sent only with an e-mail address or a phone number; partial rows are reported by index and field", () => {
    const prepared = prepareContacts(
      [{ email: "x@y.de" }, { first_name: "Anna", last_name: "Müller" }, { email: "x@y.de", country: "Germany" }, { email: "nope" }, {}],
      today,
    );
    expect(prepared.rows).toHaveLength(2);
    expect(prepared.skipped).toEqual([
      { index: 1, fields: ["email", "phone"] },
      { index: 3, fields: ["email"] },
      { index: 4, fields: ["email", "phone"] },
    ]);
    expect(prepared.partial).toEqual([{ index: 2, fields: ["country"] }]);
  });
});

const text = fc.string({ unit: "grapheme", maxLength: 24 });
const contactArb: fc.Arbitrary<Contact> = fc.record(
  {
    email: fc.oneof(fc.emailAddress(), text),
    phone: fc.oneof(fc.stringMatching(/^(\+|00|0)?[1-9][0-9 ()/-]{6,16}$/), text),
    first_name: text,
    last_name: text,
    city: text,
    zip: fc.oneof(fc.stringMatching(/^[0-9]{4,5}$/), text),
    country: fc.oneof(fc.constantFrom("DE", "at", " ch ", "Li", "xx", "US"), text),
    date_of_birth: fc.oneof(
      fc.date({ min: new Date("1900-01-01"), max: today, noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
      text,
    ),
  },
  { requiredKeys: [] },
);

describe("properties", () => {
  test("normalising twice changes nothing", () => {
    fc.assert(
      fc.property(contactArb, (contact) => {
        const once = normaliseContact(contact, today);
        const twice = normaliseContact(once.values, today);
        expect(twice.values).toEqual(once.values);
        expect(twice.invalid).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  test("equivalent spellings give the same hashes (case, surrounding blanks, composed or decomposed letters)", () => {
    fc.assert(
      fc.property(contactArb, fc.constantFrom("upper", "blanks", "nfd"), (contact, variant) => {
        const vary = (value: string) => (variant === "upper" ? value.toUpperCase() : variant === "blanks" ? ` \t${value} ` : value.normalize("NFD"));
        const varied: Contact = {};
        for (const field of CONTACT_FIELDS) {
          const value = contact[field];
          if (value !== undefined) varied[field] = vary(value);
        }
        // Upper-casing changes some letters' lower case (ß → SS → ss, ǅ); compare only what is stable under it.
        const stable = (value: string | undefined) =>
          value === undefined || value.toUpperCase().toLowerCase().normalize("NFC") === value.toLowerCase().normalize("NFC");
        fc.pre(variant !== "upper" || CONTACT_FIELDS.every((field) => stable(contact[field])));
        expect(hashedRow(normaliseContact(varied, today).values)).toEqual(hashedRow(normaliseContact(contact, today).values));
      }),
      { numRuns: 2000 },
    );
  });

  test("every hash is 64 lower-case hex characters and no raw value survives in a row", () => {
    fc.assert(
      fc.property(contactArb, (contact) => {
        const row = hashedRow(normaliseContact(contact, today).values);
        for (const cell of row) expect(cell === "" || /^[0-9a-f]{64}$/.test(cell)).toBe(true);
      }),
    );
  });

  test("phone numbers: the written forms of one international number agree", () => {
    fc.assert(
      fc.property(fc.constantFrom("49", "43", "41"), fc.stringMatching(/^[1-9][0-9]{8,10}$/), (code, national) => {
        const expected = normalisePhone(`+${code}${national}`, null);
        const country = { "49": "de", "43": "at", "41": "ch" }[code] ?? null;
        expect(normalisePhone(`00${code} ${national}`, null)).toBe(expected);
        expect(normalisePhone(`+${code} (0)${national}`, null)).toBe(expected);
        expect(normalisePhone(`0${national}`, country)).toBe(expected);
        expect(sha256(expected ?? "")).toMatch(/^[0-9a-f]{64}$/);
      }),
    );
  });
});
