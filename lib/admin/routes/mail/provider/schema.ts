export { MailProviderConfig, MailReadiness, UpdateMailProviderConfig } from "../../../../mail/setup/provider-config-schema";

export const tags = ["Mail provider"];
