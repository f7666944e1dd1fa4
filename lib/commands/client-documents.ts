import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OpenAPI3 } from "openapi-typescript";
import { bootRuntime } from "../bootstrap";

export const CLIENT_SERVICES = ["mail", "ads", "admin"] as const;
export type ClientService = (typeof CLIENT_SERVICES)[number];

/** The documents exactly as `GET /<service>/v1/openapi.json` serves them, from a throwaway embedded runtime. */
export async function servedDocuments(): Promise<Record<ClientService, OpenAPI3>> {
  const dataDir = mkdtempSync(join(tmpdir(), "client-generate-"));
  const runtime = await bootRuntime({ ...process.env, DATA_DIR: dataDir, DATABASE_URL: undefined, LOG_LEVEL: "error" });
  try {
    const documents = {} as Record<ClientService, OpenAPI3>;
    for (const service of CLIENT_SERVICES) {
      const response = await runtime.app.root.request(`/${service}/v1/openapi.json`);
      if (response.status !== 200) throw new Error(`GET /${service}/v1/openapi.json answered ${response.status}`);
      documents[service] = (await response.json()) as OpenAPI3;
    }
    return documents;
  } finally {
    await runtime.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
