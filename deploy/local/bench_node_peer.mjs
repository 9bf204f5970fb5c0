// The Node.js `http2` peer of the benchmark: the bare libcurl peer's requests (bench_peer.c), sent by
// Node's own HTTP/2 client, so that the worker can also be compared with a mainstream event-loop client in the
// same run.
//
//   node bench_node_peer.mjs APNS_ORIGIN FCM_ORIGIN CA_FILE REQUESTS [STREAMS]
//
// Half the requests are APNs-shaped, half FCM-shaped, with bench_peer.c's headers and bodies; STREAMS (default 200)
// requests are kept in flight over HTTP/2 with TLS, on 2 sessions (connections) per origin, each answered request
// starting the next. Prints one line in bench_peer.c's format: requests, seconds, requests/s, CPU seconds (user +
// system), failures. Run by bench.py when `node` is installed; not part of the service.
import http2 from "node:http2";
import fs from "node:fs";

const [apns, fcm, caFile, requestsText, streamsText] = process.argv.slice(2);
const requests = Number.parseInt(requestsText, 10);
const streams = Number.parseInt(streamsText ?? "200", 10);
if (!apns || !fcm || !caFile || !(requests > 0) || !(streams > 0)) {
  process.stderr.write("usage: node bench_node_peer.mjs APNS_ORIGIN FCM_ORIGIN CA_FILE REQUESTS [STREAMS]\n");
  process.exit(2);
}

const apnsBody = Buffer.from(
  '{"aps":{"alert":{"loc-key":"im_loc_text","loc-args":["Alice","Are we still on for lunch tomorrow? I booked the ' +
    'place near the office for twelve."],"title":"Team","body":"Alice: Are we still on for lunch tomorrow? I booked ' +
    'the place near the office for twelve."},"sound":"default","badge":3,"thread-id":"r-42","mutable-content":1},' +
    '"type":"text","room":"r-42","message":"m-1000"}',
);
const fcmBody = Buffer.from(
  '{"message":{"token":"fcm-token-0001","notification":{"title":"Team","body":"Alice: Are we still on for lunch ' +
    'tomorrow? I booked the place near the office for twelve."},"android":{"collapse_key":"r-42","ttl":"3600s",' +
    '"priority":"HIGH","notification":{"body_loc_key":"im_loc_text","body_loc_args":["Alice","Are we still on for ' +
    'lunch tomorrow?"],"click_action":"push_chatroom","notification_count":3,"tag":"r-42"}},"data":{"loc-key":' +
    '"im_loc_text","type":"text","payload":"{}"}}}',
);
const apnsHeaders = {
  "content-type": "application/json",
  "apns-push-type": "alert",
  "apns-topic": "com.example.chat",
  "apns-priority": "10",
  "apns-expiration": "1800000000",
  "apns-collapse-id": "r-42",
  "apns-id": "6c7a1b52-3f4e-4d5a-9b8c-7d6e5f4a3b2c",
  authorization: "bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IktFWSJ9.e30.c2lnbmF0dXJl",
};
const fcmHeaders = { "content-type": "application/json", authorization: "Bearer ya29.bench-access-token" };

const ca = fs.readFileSync(caFile);
const sessions = {
  apns: [http2.connect(apns, { ca }), http2.connect(apns, { ca })],
  fcm: [http2.connect(fcm, { ca }), http2.connect(fcm, { ca })],
};

let next = 0;
let done = 0;
let failed = 0;
const began = process.hrtime.bigint();
const cpuBegan = process.cpuUsage();

function finish() {
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  const cpu = process.cpuUsage(cpuBegan);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  process.stdout.write(
    `node peer: ${requests} requests in ${seconds.toFixed(2)} s: ${(requests / seconds).toFixed(0)} requests/s, ` +
      `CPU ${cpuSeconds.toFixed(2)} s, failed ${failed}\n`,
  );
  for (const session of [...sessions.apns, ...sessions.fcm]) session.close();
  process.exitCode = failed === 0 ? 0 : 1;
}

// Sends request number `index` (APNs when even); its answer starts the next one.
function start(index) {
  const isAPNs = index % 2 === 0;
  const pool = isAPNs ? sessions.apns : sessions.fcm;
  const session = pool[(index >> 1) % pool.length];
  const path = isAPNs
    ? `/3/device/${(index + 1).toString(16).padStart(64, "0")}`
    : "/v1/projects/bench-project/messages:send";
  const stream = session.request({ ":method": "POST", ":path": path, ...(isAPNs ? apnsHeaders : fcmHeaders) });
  let status = 0;
  stream.on("response", (headers) => {
    status = headers[":status"];
  });
  stream.on("data", () => {});
  stream.on("error", () => {});
  stream.on("close", () => {
    if (status !== 200) failed += 1;
    done += 1;
    if (next < requests) start(next++);
    else if (done === requests) finish();
  });
  stream.end(isAPNs ? apnsBody : fcmBody);
}

for (let slot = 0; slot < streams && next < requests; slot += 1) start(next++);
