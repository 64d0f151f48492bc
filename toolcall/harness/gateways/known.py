"""The gateways checked by `make gateways`: how each is pinned, started and addressed.

Each is configured the plainest way its documentation gives for an OpenAI-compatible upstream,
so what the suite measures is what a user of the defaults gets:

- LiteLLM proxy: one `model_list` entry per stream (`openai/<model>` at `api_base` the stream's
  path on `toolcall serve`); it refuses to start without a master key, so a random one is made per
  run; `LITELLM_LOCAL_MODEL_COST_MAP` keeps it from fetching its price list from the network.
- Portkey gateway: provider `openai` with `x-portkey-custom-host` set to the stream's path; and,
  as `portkey-providers`, each vendor's own named provider (`deepseek`, `zhipu`, `moonshot`,
  `dashscope`, `x-ai`), which users pick to get Portkey's handling of that vendor, pointed at serve
  with the same header (Portkey takes `x-portkey-custom-host` before a provider's own base URL,
  then appends the provider's endpoint path). npm
  resolves `@hono/node-server` 1.19, with which every streamed request fails (`TypeError:
  immutable`, Portkey-AI/gateway issues 1389 and 1550), so `gateways/portkey/package.json` pins
  1.13.8 through `overrides`. It listens on every interface with no option to choose; the
  preload `gateways/portkey/loopback.cjs` makes it listen on 127.0.0.1.
- openai-forward: one forward route `/` to `toolcall serve`, so the path (and with it the
  scenario and the fault) passes through; run under uvicorn on 127.0.0.1 because its own
  launcher binds 0.0.0.0. It needs `pyyaml`, which it does not declare.
- any other gateway, by URL (`--gateway-url`): it must forward `<url>/<path>` to `toolcall
  serve`'s `<path>` (start serve on a fixed `--serve-port` and point the gateway there).

The scenario, the published recording and the fault are chosen by the URL path on `serve`
(`run.route_path`), never by a header, since gateways drop headers they do not know.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import yaml

from ..peers import Unavailable
from .install import Pin, ensure, python
from .process import HOST

#: The committed package.json, lock file and loopback preload of the Portkey install.
PORTKEY_FOLDER = Path(__file__).resolve().parents[3] / "gateways" / "portkey"


@dataclass(frozen=True)
class Route:
    """One stream as `serve` offers it: a unique `alias` (LiteLLM's model name for it), the
    path on serve that picks it (ending in `/v1`), and the model the request names."""

    alias: str
    path: str
    model: str


@dataclass(frozen=True)
class Target:
    """Where a client sends one stream through the gateway, and with what."""

    base_url: str
    model: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Launch:
    """How to start a gateway: the command (None: already running elsewhere), its port, its
    environment additions and working folder."""

    command: tuple[str, ...] | None
    port: int
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: Path | None = None


class Gateway(Protocol):
    name: str
    version: str
    #: how a client reaches an upstream through it, as the report says
    how: str

    def cannot_route(self, provider: str) -> str | None:
        """Why this gateway, as configured here, has no route to `provider`'s streams; None
        when it has one."""
        ...

    def install(self, root: Path) -> Path:
        """The gateway's home folder, installed (`Unavailable` with the reason if it cannot be)."""
        ...

    def launch(self, home: Path, port: int, serve_url: str, routes: Sequence[Route]) -> Launch: ...

    def target(self, launch: Launch, serve_url: str, route: Route) -> Target: ...


def _local(port: int) -> str:
    return f"http://{HOST}:{port}"


class _RoutesEveryProvider:
    def cannot_route(self, provider: str) -> str | None:
        return None


class LiteLLM(_RoutesEveryProvider):
    name = "litellm"
    version = "1.108.7"
    how = "one `model_list` entry per stream, `openai/<model>` at `api_base` on serve"
    pin = Pin(name, version, pip=(f"litellm[proxy]=={version}",))

    def __init__(self) -> None:
        self.master_key = "sk-" + secrets.token_hex(16)

    def install(self, root: Path) -> Path:
        return ensure(self.pin, root)

    def launch(self, home: Path, port: int, serve_url: str, routes: Sequence[Route]) -> Launch:
        config = {
            "model_list": [
                {
                    "model_name": u.alias,
                    "litellm_params": {
                        "model": f"openai/{u.model}",
                        "api_base": serve_url + u.path,
                        "api_key": "anything",
                    },
                }
                for u in routes
            ],
            "general_settings": {"master_key": self.master_key},
        }
        run = home / "run"
        run.mkdir(parents=True, exist_ok=True)
        path = run / "config.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        litellm = home / "venv" / "bin" / "litellm"
        command = (str(litellm), "--config", str(path), "--host", HOST, "--port", str(port))
        return Launch(command, port, {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}, run)

    def target(self, launch: Launch, serve_url: str, route: Route) -> Target:
        return Target(
            f"{_local(launch.port)}/v1",
            route.alias,
            {"Authorization": f"Bearer {self.master_key}"},
        )


class Portkey(_RoutesEveryProvider):
    name = "portkey"
    version = "1.15.2"
    how = "`x-portkey-provider: openai` with `x-portkey-custom-host` on serve"
    pin = Pin(name, version, npm_folder=PORTKEY_FOLDER)

    def install(self, root: Path) -> Path:
        if shutil.which("node") is None:
            raise Unavailable("node is not installed")
        return ensure(self.pin, root)

    def launch(self, home: Path, port: int, serve_url: str, routes: Sequence[Route]) -> Launch:
        node = shutil.which("node") or "node"
        server = home / "node_modules" / "@portkey-ai" / "gateway" / "build" / "start-server.js"
        preload = PORTKEY_FOLDER / "loopback.cjs"
        command = (node, "-r", str(preload), str(server), f"--port={port}", "--headless")
        return Launch(command, port, {}, home)

    def target(self, launch: Launch, serve_url: str, route: Route) -> Target:
        return self._target(launch, route, "openai", serve_url + route.path)

    @staticmethod
    def _target(launch: Launch, route: Route, provider: str, host: str) -> Target:
        headers = {
            "Authorization": "Bearer anything",
            "x-portkey-provider": provider,
            "x-portkey-custom-host": host,
        }
        return Target(f"{_local(launch.port)}/v1", route.model, headers)


#: The suite's providers by the name Portkey 1.15.2 gives its own provider for each vendor.
PORTKEY_PROVIDERS = {
    "deepseek": "deepseek",
    "glm": "zhipu",
    "kimi": "moonshot",
    "qwen": "dashscope",
    "grok": "x-ai",
}
#: Why the others have no named provider to check here.
PORTKEY_NO_PROVIDER = {
    "openai": "its named provider is `openai`, which the `portkey` run checks",
    "doubao": "Portkey 1.15.2 has no provider for Volcengine Ark",
    "gemini": "Portkey's `google` provider speaks Gemini's own API, not chat completions",
}


class PortkeyProviders(Portkey):
    """Portkey with each vendor's own provider: its request and stream transforms run, which
    the `openai` provider leaves out."""

    name = "portkey-providers"
    how = (
        "each vendor's own `x-portkey-provider` ("
        + ", ".join(f"{k}: `{v}`" for k, v in PORTKEY_PROVIDERS.items())
        + ") with `x-portkey-custom-host` on serve"
    )

    def cannot_route(self, provider: str) -> str | None:
        if provider in PORTKEY_PROVIDERS:
            return None
        return PORTKEY_NO_PROVIDER.get(provider, "Portkey has no provider of that name")

    def target(self, launch: Launch, serve_url: str, route: Route) -> Target:
        """The custom host stops before `/v1`: each provider appends its own endpoint path
        (`/v1/chat/completions` for `deepseek`, `/chat/completions` for the others), and
        serve takes the path with or without `/v1`."""
        provider = route.path.strip("/").split("/")[0]
        host = serve_url + route.path.removesuffix("/v1")
        return self._target(launch, route, PORTKEY_PROVIDERS[provider], host)


class OpenAIForward(_RoutesEveryProvider):
    name = "openai-forward"
    version = "0.8.1"
    how = "one forward route `/` to serve"
    pin = Pin(name, version, pip=(f"openai-forward=={version}", "pyyaml==6.0.4"))

    def install(self, root: Path) -> Path:
        return ensure(self.pin, root)

    def launch(self, home: Path, port: int, serve_url: str, routes: Sequence[Route]) -> Launch:
        run = home / "run"
        run.mkdir(parents=True, exist_ok=True)
        route = [{"base_url": serve_url, "route": "/", "type": "openai"}]
        command = (
            str(python(home)),
            "-m",
            "uvicorn",
            "openai_forward.app:app",
            "--host",
            HOST,
            "--port",
            str(port),
        )
        return Launch(command, port, {"FORWARD_CONFIG": json.dumps(route)}, run)

    def target(self, launch: Launch, serve_url: str, route: Route) -> Target:
        return Target(_local(launch.port) + route.path, route.model)


class ByURL(_RoutesEveryProvider):
    """A gateway somebody else runs, which forwards every path to `toolcall serve` unchanged."""

    version = "(yours)"
    how = "every path forwarded to serve"

    def __init__(self, url: str, name: str = "url") -> None:
        self.url = url.rstrip("/")
        self.name = name

    def install(self, root: Path) -> Path:
        return root

    def launch(self, home: Path, port: int, serve_url: str, routes: Sequence[Route]) -> Launch:
        return Launch(None, port)

    def target(self, launch: Launch, serve_url: str, route: Route) -> Target:
        return Target(self.url + route.path, route.model)


def builtin() -> list[Gateway]:
    return [LiteLLM(), Portkey(), PortkeyProviders(), OpenAIForward()]


def child_environment(extra: Mapping[str, str]) -> dict[str, str]:
    """The parent's environment without provider keys or proxies (the gateways talk to
    127.0.0.1 only), plus the gateway's own settings."""
    dropped = ("_API_KEY", "_PROXY", "_proxy")
    env = {k: v for k, v in os.environ.items() if not k.endswith(dropped)}
    env["NO_PROXY"] = env["no_proxy"] = f"{HOST},localhost"
    env.update(extra)
    return env
