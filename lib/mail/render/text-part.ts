import { compile } from "html-to-text";

// Compiled at the first mail, once per process: compiling the options (the selectors' matcher) costs more than
// converting a mail with them.
let toText: ((html: string) => string) | undefined;

/**
 * The text part sent beside a mail's HTML (Postmark's `TextBody`): what the HTML reads as plain text, lines
 * wrapped at 78 characters (RFC 5322's recommended line length), links as "text [address]" (the address once
 * when the text is the address), images left out (their `alt` text would repeat headings in most layouts),
 * headings in the case the customer wrote them. It is made from the HTML exactly as sent, so both parts carry
 * the same words and links.
 */
export function textPartOf(html: string): string {
  toText ??= compile({
    wordwrap: 78,
    selectors: [
      { selector: "img", format: "skip" },
      { selector: "a", options: { hideLinkHrefIfSameAsText: true } },
      ...["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({ selector, options: { uppercase: false } })),
    ],
  });
  return toText(html);
}
