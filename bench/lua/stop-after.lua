-- Stops after BENCH_REQUESTS responses (per wrk thread; the benchmark runs one thread).
-- wrk is duration-bound too: the runner gives it a generous -d as a safety cap.
local limit = tonumber(os.getenv("BENCH_REQUESTS") or "100000")
local count = 0

response = function(status, headers, body)
  count = count + 1
  if count >= limit then
    -- wrk would otherwise sleep out its whole -d: end the process (its summary is not needed).
    io.stdout:write(string.format("stopped after %d responses\n", count))
    os.exit(0)
  end
end
