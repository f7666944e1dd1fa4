import { functionHandler } from "../lib/vercel";

const handler = functionHandler("admin");
export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as HEAD, handler as OPTIONS };
