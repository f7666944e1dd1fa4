export const tags = ["Ads review"];
