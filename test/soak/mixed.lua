-- wrk script for the soak: cycles through a mix of requests and counts 4xx/5xx per thread.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  fivexx = 0
  fourxx = 0
  local json = '{"user":"ann","tags":["a","b"],"n":42}'
  local form = "a=1&b=two&c=%C3%A9"
  reqs = {
    wrk.format("GET", "/"),
    wrk.format("GET", "/const"),
    wrk.format("GET", "/items/42?q=search"),
    wrk.format("POST", "/json", { ["Content-Type"] = "application/json" }, json),
    wrk.format("POST", "/form", { ["Content-Type"] = "application/x-www-form-urlencoded" }, form),
    wrk.format("GET", "/cookie", { ["Cookie"] = "visit=3; other=x" }),
    wrk.format("GET", "/async"),
    wrk.format("GET", "/mw"),
    wrk.format("GET", "/static/file.txt"),
    wrk.format("GET", "/nope"),
  }
  i = 0
end

function request()
  i = i + 1
  if i > #reqs then i = 1 end
  return reqs[i]
end

function response(status, headers, body)
  if status >= 500 then
    fivexx = fivexx + 1
  elseif status >= 400 then
    fourxx = fourxx + 1
  end
end

function done(summary, latency, requests)
  local f, x = 0, 0
  for _, t in ipairs(threads) do
    f = f + t:get("fivexx")
    x = x + t:get("fourxx")
  end
  io.write(string.format("STATUS_5XX %d\nSTATUS_4XX %d\n", f, x))
  io.write(string.format("TOTAL_REQUESTS %d\n", summary.requests))
  io.write(string.format("SOCKET_ERRORS %d %d %d %d\n", summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.timeout))
  io.write(string.format("STATUS_ERRORS %d\n", summary.errors.status))
  io.write(string.format("LATENCY_P99_US %d\n", latency:percentile(99)))
end
