// The Vercel function for /api/platform/* (the ad platform's webhooks: GET handshake, POST change hints).
// See api/mail.js for why plain ESM.
import { functionHandler } from "../dist/functions/vercel.js";

const handler = functionHandler("api");
export { handler as GET, handler as POST };
