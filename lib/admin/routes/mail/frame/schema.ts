export const tags = ["Mail frame"];
