import { functionHandler } from "../lib/vercel";

const handler = functionHandler("api");
export { handler as GET, handler as POST };
