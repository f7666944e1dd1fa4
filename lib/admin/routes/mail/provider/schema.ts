export const tags = ["Mail provider"];
