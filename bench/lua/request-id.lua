-- GET with a client request id (the production-stack scenario): every server must echo it.
wrk.headers["X-Request-Id"] = "bench-request-0001"
