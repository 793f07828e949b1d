"""Real local servers standing in for upstreams (SPEC §7): http.server on 127.0.0.1, port 0."""
