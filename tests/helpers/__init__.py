"""What the tests share: bodies written on every wire, outcomes on both JSON backends, the fuzzer
and its corpus, a rewriting relay. Not tests themselves."""
