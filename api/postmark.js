// The Vercel function for /api/postmark/* (Postmark webhooks). See api/mail.js for why plain ESM.
import { functionHandler } from "../dist/functions/vercel.js";

const handler = functionHandler("api");
export { handler as POST };
