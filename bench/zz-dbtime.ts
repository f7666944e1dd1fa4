import { PGlite } from "@electric-sql/pglite";
import { benchScale } from "./scale";

const proto = PGlite.prototype as unknown as { execProtocolRawSync(r: Uint8Array): Uint8Array };
const original = proto.execProtocolRawSync;
const stats = new Map<string, { n: number; total: number; max: number }>();
let on = false;
let lastParse = "";
(globalThis as { __dbtimeOn?: (v: boolean) => void }).__dbtimeOn = (v) => {
  on = v;
};
proto.execProtocolRawSync = function (this: unknown, r: Uint8Array) {
  const started = performance.now();
  try {
    return original.call(this, r);
  } finally {
    const took = performance.now() - started;
    if (on) {
      const text = Buffer.from(r.subarray(0, Math.min(r.length, 400))).toString("latin1").replace(/[^\x20-\x7e]+/g, " ").trim();
      let key = text.slice(0, 90);
      if (text.startsWith("P")) lastParse = key;
      if (text.startsWith("E")) key = `E<- ${lastParse}`;
      const s = stats.get(key) ?? { n: 0, total: 0, max: 0 };
      s.n++;
      s.total += took;
      s.max = Math.max(s.max, took);
      stats.set(key, s);
    }
  }
};
setTimeout(() => (on = true), Number(process.env.DBTIME_AFTER_MS ?? 0));
await benchScale();
const rows = [...stats.entries()].sort((a, b) => b[1].total - a[1].total).slice(0, 30);
for (const [k, s] of rows) console.log(`${s.total.toFixed(0).padStart(7)} ms  n=${String(s.n).padStart(6)} max ${s.max.toFixed(0).padStart(5)}  ${k}`);
