/**
 * The Postmark simulator: an HTTP server speaking the part of Postmark's API our mail service uses, for
 * offline development and as the provider in tests. Point the real client at it:
 * `new ServerClient(token, { useHttps: false, requestHost: "127.0.0.1:<port>" })`.
 *
 * Postmark API (shapes, casing and error codes as Postmark's): `POST /email`, `POST /email/batch` (≤ 500,
 * one result per message, HTTP 200), `POST /email/bulk` and `GET /email/bulk/{id}` (the Bulk API: content
 * once, each recipient's message compiled with Mustachio from its `TemplateModel`, see `mustachio.ts`; then
 * sent, evented and searchable like `/email` messages, each with its own `Metadata`), `GET /message-streams/{stream}/suppressions/dump`,
 * `POST /message-streams/{stream}/suppressions`, `POST /message-streams/{stream}/suppressions/delete`,
 * `GET /messages/outbound` (the Messages API search: count/offset, recipient, tag, stream and one
 * `metadata_<key>=<value>`, over the messages the simulator keeps).
 * Token `POSTMARK_API_TEST` validates and answers but records and posts nothing; a Sandbox server records
 * mail but posts no Delivery events (test addresses still bounce, as in Postmark's sandbox mode).
 *
 * Test addresses (see `test-addresses.ts`): Postmark's black hole `<type>@bounce-testing.postmarkapp.com`
 * (`hardbounce`, `softbounce`, `transient`, `blocked`, …; unknown local part = HardBounce), plus
 * `spamcomplaint@…`, an ignored `+tag`, and `hardbounce` / `softbounce` / `spamcomplaint` on any domain.
 *
 * Control endpoints (no token; loopback only):
 * - `GET /__sim/messages?to=&stream=&tag=&server_id=&metadata_key=&metadata_value=&limit=&offset=`,
 *   `GET /__sim/messages/{MessageID}` (with HtmlBody/TextBody while still stored)
 * - `POST /__sim/messages/{MessageID}/open|click|unsubscribe|bounce|complain` with `{ recipient?, url?,
 *   location?, platform?, type? }`: the reader's actions, posted as Postmark webhooks
 * - `GET /__sim/stats` (`received`, `duplicates_by_metadata_message_id`, …), `POST /__sim/reset`
 * - `POST /__sim/faults { mode: slow|stall|error500|drop|late|none, count?, delay_ms?, after_accept?, path? }`
 * - `POST /__sim/late/take-in`: the calls `late` faults kept (their callers got no answer) are handled now
 * - `POST /__sim/search { delay_ms }`: the Messages API search leaves out messages younger than this
 * - `POST /__sim/latency { delay_ms }`: every send request is held this long, then handled (a slow provider)
 * - `POST /__sim/freeze { duration_ms, drain_ms?, on_next_send_to? }`: every send request is held until the freeze
 *   ends (even after its caller has gone), then the backlog is handled in order, one every `drain_ms`, beside new
 *   requests; with `on_next_send_to` (a path such as `/email/batch`) the freeze begins when the next send request
 *   to that path arrives
 * - `POST /__sim/throttle { rate, duration_ms, retry_after_seconds?, status?, cut? }`: for that long, that share (0–1) of the
 *   send requests is answered 429 (or `status: 503`; with `Retry-After` when given); `cut`: refused with the connection
 *   closed before the upload ends (the caller gets no answer)
 * - `GET /__sim/webhooks?limit=` (log of posted events), `PUT /__sim/webhook { url, username?, password? } | null`
 * - `POST /__sim/servers { token, id?, name?, deliveryType?, streams: [{ id, type }] }`
 *
 * State: in memory, or with `stateFile` (what `npm start` uses, under DATA_DIR) also in a journal on disk,
 * so servers, accepted messages (without bodies) and suppressions survive a restart (`./journal.ts`).
 *
 * Webhooks: one event per POST, Basic auth, in order per message, never blocking a send; a non-2xx answer
 * or network error is retried after 100 ms, 500 ms and 2 s (configurable), a 403 stops retries at once.
 */
export { createPostmarkSimulator } from "./app";
export { POSTMARK_API_TEST_TOKEN } from "./simulator";
export { startPostmarkSimulator, type RunningPostmarkSimulator } from "./server";
export {
  SIMULATOR_TEST_ADDRESSES,
  classifyTestAddress,
  simulatorTestAddress,
} from "./test-addresses";
export { METADATA_MESSAGE_ID_KEY } from "./store";
export type * from "./postmark-shapes";
