-- POST /json with a small JSON document (the echo scenario).
wrk.method = "POST"
wrk.body = '{"id":42,"name":"bench","tags":["a","b","c"],"nested":{"ok":true,"ratio":0.5}}'
wrk.headers["Content-Type"] = "application/json"
