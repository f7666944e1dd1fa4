import { type CompressedBody, compressedBody } from "../core/compressed";
import { consoleScript } from "./bundle";
import { CONSOLE_CSS } from "./styles";

/** A year, never revalidated: for URLs whose `?v=` names the bytes' hash (a change of bytes is a new URL). */
export const IMMUTABLE = "public, max-age=31536000, immutable";

let style: CompressedBody | null = null;
let script: Promise<CompressedBody> | null = null;

export function consoleStyle(): CompressedBody {
  style ??= compressedBody(CONSOLE_CSS);
  return style;
}

export function consoleScriptBody(): Promise<CompressedBody> {
  script ??= consoleScript().then(
    (text) => compressedBody(text),
    (error: unknown) => {
      script = null;
      throw error;
    },
  );
  return script;
}

/** The version in an asset's URL: the start of its ETag (a hash of its bytes). */
export const versionOf = (body: CompressedBody) => body.etag.slice(1, 13);

export type AssetVersions = { script: string; style: string };

export async function assetVersions(): Promise<AssetVersions> {
  return { script: versionOf(await consoleScriptBody()), style: versionOf(consoleStyle()) };
}

/** The console's icon: a blue envelope on a rounded square (also `/favicon.ico`'s bytes, see lib/runtime.ts). */
export const FAVICON = compressedBody(
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0b57d0"/><path d="M7 10h18v12H7z" fill="#fff"/><path d="M7 10l9 7 9-7" fill="none" stroke="#0b57d0" stroke-width="2"/></svg>`,
);
