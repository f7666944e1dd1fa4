import { functionHandler } from "../lib/vercel";

const handler = functionHandler("api");
export { handler as POST };
