"""`toolcall add-provider`: a new provider's profile appended to providers.yaml."""

from __future__ import annotations

import argparse

from ..suite.profiles import Suite

HELP = "append a new provider's profile to providers.yaml, ready to record"
WRITES = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="the providers.yaml key, lower case (vllm, ollama...)")
    parser.add_argument("--base-url", required=True, help="the OpenAI-compatible base URL (.../v1)")
    parser.add_argument("--key-env", required=True, help="the variable holding its key")
    parser.add_argument("--model", required=True, help="the model every scenario asks for")


def run(suite: Suite, args: argparse.Namespace) -> int:
    """Write the profile, then say the next two steps."""
    from ..recording.add_provider import add_provider

    path = add_provider(
        suite, args.name, base_url=args.base_url, key_env=args.key_env, model=args.model
    )
    print(f"added providers.{args.name} to {path} (every scenario pending)")
    print(f"now: {args.key_env}=... make record PROVIDER={args.name} ACCEPT=1")
    print("and mark a scenario the server cannot do `not_applicable: <reason>`")
    return 0
