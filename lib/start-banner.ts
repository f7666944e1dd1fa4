import type { DemoKeys } from "./seed";

export type ExportsInput = {
  /** Where the app answers, e.g. `http://localhost:3000`. */
  base: string;
  /** The operator token's file, or null when it comes from `ADMIN_TOKEN`. */
  adminTokenFile: string | null;
  demo: { customerId: string; keys: DemoKeys | null };
  /** Simulator origins (no path), or null when a real provider is configured. */
  postmarkSimulator: string | null;
  graphSimulator: string | null;
};

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
const KEY_FROM_JSON = `node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).data.key'`;

/**
 * The `export` lines `npm start` prints on every start, ready to paste; the guides' walk-throughs use these
 * names (and tests/foundation/readme-walkthrough.test.ts reads them from the output). The keys exist in
 * clear only on the first start (they are stored hashed); later starts say how to issue new ones. The
 * operator token is never printed, only read from its file by the pasted line.
 */
export function exportLines(input: ExportsInput): string[] {
  const { demo } = input;
  const lines = [`export BASE=${input.base}`];
  if (demo.keys) {
    lines.push(`export MAIL=${demo.keys.mailFull}`, `export ADS=${demo.keys.adsFull}`);
  } else {
    lines.push(
      "# MAIL and ADS: the Demo's keys printed on its first start; or issue new ones (each run makes another key):",
      `# export MAIL=$(npm run -s admin -- keys:create ${demo.customerId} mail full | ${KEY_FROM_JSON})`,
      `# export ADS=$(npm run -s admin -- keys:create ${demo.customerId} ads full | ${KEY_FROM_JSON})`,
    );
  }
  lines.push(input.adminTokenFile ? `export ADMIN="$(cat ${quote(input.adminTokenFile)})"` : "# ADMIN: the ADMIN_TOKEN this server was started with");
  lines.push(`export DEMO=${demo.customerId}`);
  if (input.postmarkSimulator) lines.push(`export POSTMARK_SIM=${input.postmarkSimulator}`);
  if (input.graphSimulator) lines.push(`export GRAPH_SIM=${input.graphSimulator}`);
  return lines;
}
