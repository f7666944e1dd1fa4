// The Vercel function for /api/queue/* (QStash deliveries, POST with Upstash-Signature). See api/mail.js for why plain ESM.
import { functionHandler } from "../dist/functions/vercel.js";

const handler = functionHandler("api");
export { handler as POST };
