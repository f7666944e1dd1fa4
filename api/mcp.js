// The Vercel function for /mcp (the MCP server over Streamable HTTP; its tool calls go to this deployment's
// APIs over HTTPS). Plain ESM over the bundle of lib/functions/mcp.ts; see api/mail.js.
import { handler } from "../dist/functions/mcp.js";

export { handler as GET, handler as POST, handler as DELETE };
