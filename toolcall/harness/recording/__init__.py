"""Recording and replaying: capture, scrub secrets, accept, round-trip and add a provider."""
