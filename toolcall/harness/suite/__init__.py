"""The suite: its profiles, cassettes and recordings, the quirk fingerprint they are described by,
where they live, and its cases."""
