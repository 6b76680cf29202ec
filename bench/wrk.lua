-- wrk script for bench/run.ts. One thread (wrk -t1), so plain globals are this thread's state.
--   WRK_METHOD  GET or POST (default GET)
--   WRK_BODY    request body (POST); each "{n}" in it becomes the request's number (1, 2, …),
--               so every request can create a different row
--   WRK_AUTH    the Authorization header's value
--   WRK_PATHS   a file with one request path a line; requests take them in turn
-- At the end it prints one JSON line: requests, status errors (non-2xx/3xx answers), socket
-- errors, and latency percentiles in microseconds.
local paths = {}
for line in io.lines(os.getenv("WRK_PATHS")) do paths[#paths + 1] = line end
local next_path = 0

wrk.method = os.getenv("WRK_METHOD") or "GET"
local body = os.getenv("WRK_BODY")
local numbered = body and body:find("{n}", 1, true) ~= nil
local sent = 0
if body and body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end
wrk.headers["Authorization"] = os.getenv("WRK_AUTH")

request = function()
  next_path = next_path % #paths + 1
  if not numbered then return wrk.format(nil, paths[next_path]) end
  sent = sent + 1
  return wrk.format(nil, paths[next_path], nil, (body:gsub("{n}", tostring(sent))))
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\n{"requests":%d,"durationUs":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,' ..
    '"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}\n',
    summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
