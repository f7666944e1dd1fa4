import fc from "fast-check";
import { expect, test } from "vitest";
import { SecretBox, generateEncryptionKey } from "../../lib/core/secrets";

test("sealed values open to the plaintext, are recognised as sealed, and plain ids or names are not", () => {
  const box = new SecretBox(generateEncryptionKey());
  fc.assert(
    fc.property(fc.string(), (plain) => {
      const sealed = box.seal(plain);
      expect(box.isSealed(sealed)).toBe(true);
      expect(box.open(sealed)).toBe(plain);
    }),
  );
  for (const plain of ["1234567890", "act_1234567890", "Bäckerei Demo GmbH", "v1.only.three", "v1.a.b.c.d", "", "v2.a.b.c"]) {
    expect(box.isSealed(plain), plain).toBe(false);
    expect(() => box.open(plain), plain).toThrow("unreadable sealed secret");
  }
  expect(() => new SecretBox(generateEncryptionKey()).open(box.seal("x"))).toThrow();
});
