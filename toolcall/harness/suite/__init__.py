"""The suite: its profiles, cassettes and recordings, where they live, and its cases."""
