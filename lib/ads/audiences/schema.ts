import { z } from "@hono/zod-openapi";
import { audienceStatuses, audienceTypes } from "../../db/schema";
import { DACH_COUNTRIES } from "../targeting/schema";

export const MAX_CONTACTS_PER_CALL = 10_000;
/** Lookalike countries the service offers (the DACH markets); the platform takes any. */
const LOOKALIKE_COUNTRIES = DACH_COUNTRIES;

const field = (max: number, description: string, example: string) => z.string().max(max).optional().openapi({ description, example });

const Contact = z
  .strictObject({
    email: field(320, "E-mail address; trimmed and lower-cased.", "anna.mueller@example.de"),
    phone: field(
      40,
      "Phone number; kept as digits with the country code. `+49 171 1234567`, `0049 171 1234567` and `+49 (0)171 1234567` are the same number; a national number (`0171 1234567`) is completed from `country`, and without a `country` it is refused (the contact is then sent without it, or listed in `invalid_contacts` when nothing else identifies it).",
      "+49 171 1234567",
    ),
    first_name: field(200, "First name; lower-cased letters only (umlauts and accents kept, punctuation and spaces dropped).", "Anna"),
    last_name: field(200, "Last name; lower-cased letters only (umlauts and accents kept).", "Müller"),
    city: field(200, "City; lower-cased letters only (umlauts kept, spaces dropped).", "München"),
    zip: field(20, "Postal code; lower-cased, spaces and dashes dropped.", "80331"),
    country: field(64, "ISO 3166-1 alpha-2 country code (any case); also completes national phone numbers.", "DE"),
    date_of_birth: field(32, "Date of birth `YYYY-MM-DD`; sent as year, month and day.", "1985-04-07"),
  })
  .openapi("AudienceContact", {
    description:
      "One CRM contact. Every field is optional, but a contact is sent only with a valid `email` or `phone`. Values are normalised by the platform's rules and SHA-256 hashed by the service before anything is sent or stored; raw values are never stored, logged or returned.",
  });

const Contacts = (min: number) =>
  z
    .array(Contact)
    .min(min)
    .max(MAX_CONTACTS_PER_CALL, { message: `At most ${MAX_CONTACTS_PER_CALL} contacts per call; send more in further calls.` })
    .openapi({ description: `Up to ${MAX_CONTACTS_PER_CALL.toLocaleString("en")} contacts per call (more → 422).` });

const name = z.string().trim().min(1).max(200).openapi({ description: "Name, 1–200 characters.", example: "Newsletter subscribers" });
const description = z
  .string()
  .max(1000)
  .openapi({ description: "Free text, at most 1,000 characters.", example: "Double opt-in subscribers, exported 2026-01-15." });
const InvalidContact = z
  .object({
    index: z.number().int().openapi({ description: "Position in the request's `contacts` (from 0).", example: 3 }),
    fields: z.array(z.string()).openapi({ description: "Fields that could not be normalised (`email`, `phone`, …); never their values.", example: ["phone"] }),
  })
  .openapi("AudienceInvalidContact");

export const ContactUpload = z
  .object({
    audience_id: z.uuid().openapi({ description: "The audience.", example: "3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d" }),
    operation: z.enum(["add", "remove"]).openapi({ description: "What was done.", example: "add" }),
    received: z.number().int().openapi({ description: "Contacts in the request.", example: 3 }),
    sent: z.number().int().openapi({ description: "Hashed contacts the platform accepted.", example: 2 }),
    invalid: z.number().int().openapi({ description: "Contacts not sent (nothing valid to match by) plus entries the platform counted invalid.", example: 1 }),
    invalid_contacts: z.array(InvalidContact).openapi({ description: "Contacts not sent, by index (the first 100)." }),
    partial_contacts: z
      .array(InvalidContact)
      .openapi({ description: "Contacts sent without some fields that could not be normalised, by index (the first 100)." }),
    platform_received: z.number().int().openapi({ description: "`num_received` summed over the upload's batches.", example: 2 }),
    platform_invalid: z.number().int().openapi({ description: "`num_invalid_entries` summed over the upload's batches.", example: 0 }),
  })
  .openapi("AudienceContactUpload");

export const Audience = z
  .object({
    id: z.uuid().openapi({ description: "Audience id (UUID).", example: "3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d" }),
    name: z.string().openapi({ description: "Name.", example: "Newsletter subscribers" }),
    description: z.string().nullable().openapi({ description: "Description, or null.", example: null }),
    type: z.enum(audienceTypes).openapi({ description: "`CUSTOM` (from contacts) or `LOOKALIKE`.", example: "CUSTOM" }),
    status: z.enum(audienceStatuses).nullable().openapi({
      description:
        "The platform's state: `POPULATING` (a lookalike being built), `READY` (usable), `TOO_SMALL` (fewer matched people than the platform delivers to; add contacts), `RESTRICTED` (the platform blocked changes, operation status 471), `UNAVAILABLE` (any other platform state, or the platform no longer knows the audience; see `status_description`). Null before the first read.",
      example: "READY",
    }),
    status_description: z.string().nullable().openapi({ description: "The platform's own words on the state.", example: "This audience is ready for use." }),
    approximate_size: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Matched people, lower bound of the platform's estimate; null while unknown (e.g. populating).", example: 1200 }),
    approximate_size_upper_bound: z.number().int().nullable().openapi({ description: "Upper bound of the platform's estimate.", example: 1380 }),
    platform_audience_id: z
      .string()
      .openapi({ description: "The platform's audience id (for `custom_audiences` in targeting).", example: "120210000000000789" }),
    origin_audience_id: z
      .uuid()
      .nullable()
      .openapi({ description: "Lookalikes: the custom audience it is built on (null once that is deleted).", example: null }),
    lookalike: z
      .object({
        country: z.string().openapi({ description: "Country the lookalike is built in (DE, AT or CH).", example: "DE" }),
        ratio: z.number().openapi({ description: "Share of the country's population, 0.01–0.20.", example: 0.01 }),
      })
      .nullable()
      .openapi({ description: "Lookalikes: country and ratio of the population." }),
    contacts: z
      .object({
        sent: z.number().int().openapi({ description: "Contacts added (accepted by the platform).", example: 1200 }),
        removed: z.number().int().openapi({ description: "Contacts sent for removal.", example: 10 }),
        invalid: z.number().int().openapi({ description: "Contacts not sent or counted invalid.", example: 3 }),
      })
      .nullable()
      .openapi({ description: "Custom audiences: counts of what was uploaded (contacts themselves are never stored)." }),
    status_checked_at: z.string().nullable().openapi({ description: "When the platform was last asked (ISO 8601).", example: "2026-01-15T10:00:00.000Z" }),
    created_at: z.string().openapi({ description: "Creation time (ISO 8601).", example: "2026-01-15T10:00:00.000Z" }),
    updated_at: z.string().openapi({ description: "Last change (ISO 8601).", example: "2026-01-15T10:00:00.000Z" }),
  })
  .openapi("Audience");

export const CustomAudienceCreated = Audience.extend({ upload: ContactUpload }).openapi("CustomAudienceCreated");

export const CreateCustomAudience = z.strictObject({ name, description: description.optional(), contacts: Contacts(0) }).openapi("CreateCustomAudience");

const ratio = z
  .number()
  .min(0.01)
  .max(0.2)
  .refine((value) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-9, { message: "Must be a whole percent: 0.01, 0.02, … 0.20." })
  .openapi({
    description: "Share of the country's population most similar to the origin, 0.01–0.20 in steps of 0.01 (1 % is the closest match).",
    example: 0.01,
  });

export const CreateLookalikeAudience = z
  .strictObject({
    name,
    description: description.optional(),
    origin_audience_id: z.uuid().openapi({
      description: "Your custom audience to build on (the platform needs at least 100 matched people in it).",
      example: "3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
    }),
    country: z.enum(LOOKALIKE_COUNTRIES).openapi({ description: "Where to find similar people: DE, AT or CH.", example: "DE" }),
    ratio,
  })
  .openapi("CreateLookalikeAudience");

export const UpdateAudience = z.strictObject({ name: name.optional(), description: description.nullable().optional() }).openapi("UpdateAudience");

export const AudienceContactsBody = z.strictObject({ contacts: Contacts(1) }).openapi("AudienceContacts");

export const DeletedAudience = z
  .object({
    id: z.uuid().openapi({ description: "The deleted audience.", example: "3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d" }),
    deleted: z.literal(true).openapi({ description: "Always true.", example: true }),
  })
  .openapi("DeletedAudience");
