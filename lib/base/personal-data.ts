/**
 * E-mail addresses inside free text (a provider's error message, an exception, a log line) are replaced,
 * so texts that outlive a recipient's retention, or reach a log, never carry one. Deliberately broad: an
 * invalid address (no dot, odd characters) is still an address.
 */
export function withoutAddresses(text: string): string {
  return text.replace(/[^\s'"<>(),;:[\]]+@[^\s'"<>(),;:[\]]+/g, "[address]");
}
