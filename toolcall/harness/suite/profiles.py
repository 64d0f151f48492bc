"""Provider profiles (`providers.yaml`), routes (`routes.yaml`) and shared scenarios
(`scenarios.yaml`), loaded and checked.

All three files are data any language can read; their formats are JSON Schemas shipped in the
package (`toolcall/schemas/`). A mistake in any is reported with its YAML path
(`providers.kimi.quirks.index`) and what was wrong, before any cassette is touched, because a typo
in a profile would otherwise surface as a baffling drift report.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, best_match

from .cassettes import SAFE_LOADER

#: The waiver key for "this recording's structure may differ from the synthesis".
STRUCTURE = "structure"
#: The route of a stream that came from the vendor's own API, and of every cassette that names none.
DIRECT = "direct"


class ProfileError(Exception):
    """providers.yaml or scenarios.yaml is malformed; the message names the file and YAML path."""


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    request: dict[str, Any]
    expect: dict[str, Any]
    reply: dict[str, Any]


@dataclass(frozen=True)
class Cell:
    """One provider x scenario: applicable with a cassette, or not applicable with a reason."""

    provider: str
    scenario: str
    not_applicable: str | None
    model: str
    request_extra: dict[str, Any]
    quirks: dict[str, Any]
    provenance: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.provider}/{self.scenario}"


@dataclass(frozen=True)
class Provider:
    key: str
    name: str
    base_url: str
    key_env: str
    model: str
    request_extra: dict[str, Any]
    evidence: str
    quirks: dict[str, Any]
    synthesis: dict[str, Any]
    cells: dict[str, Cell] = field(default_factory=dict)
    #: quirk -> its declaration: value, evidence level, recordings that show it or its source.
    quirk_evidence: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: (recording stem, quirk) -> why that recording may differ from the declared value; the
    #: quirk `STRUCTURE` waives the comparison of the recording with the provider's synthesis.
    waivers: dict[tuple[str, str], str] = field(default_factory=dict)


@dataclass(frozen=True)
class Route:
    """How a provider's model is reached, and what that changes in the stream.

    `changes` is provider -> quirk -> value: what a stream of that provider through this route
    shows instead of the provider's declared value. A route's changes are kept per provider
    because they differ by provider (a gateway inserts `index` only where the provider left it
    out); `change_evidence` keeps each declaration whole (value, evidence, the recordings or
    cassettes that show it), by provider too.
    """

    key: str
    kind: str
    name: str
    description: str
    base_url: str | None = None
    carries_to: str | None = None
    changes: dict[str, dict[str, Any]] = field(default_factory=dict)
    change_evidence: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)

    def changes_for(self, provider: str, scenario: str | None = None) -> dict[str, Any]:
        """quirk -> value: what this route changes in `provider`'s stream of `scenario` (None: a
        published recording). A change published recordings show holds for every stream of
        the provider; one recorded cassettes show holds for the scenarios it names, since a
        route can treat two scenarios differently (a relay splits the finish off a call chunk,
        and a text-only answer has none)."""
        return {
            quirk: entry["value"]
            for quirk, entry in self.change_evidence.get(provider, {}).items()
            if scenario in entry.get("cassettes", [scenario])
        }

    def quirks_over(self, provider: str, scenario: str, quirks: dict[str, Any]) -> dict[str, Any]:
        """One of `provider`'s cells' declared quirks as seen through this route."""
        return {**quirks, **self.changes_for(provider, scenario)}


@dataclass(frozen=True)
class WireOffer:
    """One wire a provider offers beside chat completions: its endpoint and its evidence.

    Evidence is one of three kinds: published `recordings` (by name, under
    `cassettes/wires/<wire>/`), the provider's `documentation`, or `reported` by third parties
    only. `recorded_as` lists the provider names the recordings' provenance may give (Google's
    Gemini API and Vertex AI are one provider here).
    """

    provider: str
    wire: str
    endpoint: str
    recordings: tuple[str, ...] = ()
    #: synthesized wire cases (`cassettes/wires/<wire>/<name>`, `kind: synthesized`): events no
    #: public recording shows, written from the provider's documentation, by name
    cases: tuple[str, ...] = ()
    recorded_as: tuple[str, ...] = ()
    documentation: str = ""
    reported: str = ""
    #: wire recording -> the published chat recording of the same request to this provider.
    same_request: dict[str, str] = field(default_factory=dict)
    #: how synthesized cassettes on this wire are rendered (`synthesize`); none: not rendered
    synthesis: dict[str, Any] | None = None

    @property
    def row(self) -> str:
        """The matrix row of this provider's recordings on this wire."""
        return f"{self.provider}@{self.wire}"


@dataclass(frozen=True)
class Suite:
    """Everything the harness knows before it opens a cassette."""

    root: Path
    scenarios: dict[str, Scenario]
    providers: dict[str, Provider]
    routes: dict[str, Route] = field(default_factory=dict)
    #: Every wire offered beside chat completions, by the profiles and by `wire_only` providers.
    wire_offers: tuple[WireOffer, ...] = ()

    def route(self, key: str) -> Route:
        """The route named `key`; an unknown name is an error naming the known ones."""
        if key not in self.routes:
            raise ProfileError(f"unknown route {key!r}; routes.yaml defines {sorted(self.routes)}")
        return self.routes[key]

    @property
    def cassettes(self) -> Path:
        return self.root / "cassettes"

    def cells(
        self, provider: str | None = None, scenario: str | None = None
    ) -> list[tuple[Provider, Scenario, Cell]]:
        """Every cell, in file order, optionally filtered (the PROVIDER= / SCENARIO= filters).

        An unknown filter is an error naming what is known: a typo must not select nothing and
        pass.
        """
        if provider and provider not in self.providers:
            raise ProfileError(f"unknown provider {provider!r}; known: {sorted(self.providers)}")
        if scenario and scenario not in self.scenarios:
            raise ProfileError(f"unknown scenario {scenario!r}; known: {sorted(self.scenarios)}")
        out = []
        for p in self.providers.values():
            if provider and p.key != provider:
                continue
            for s in self.scenarios.values():
                if scenario and s.name != scenario:
                    continue
                out.append((p, s, p.cells[s.name]))
        return out

    def request_body(self, provider: Provider, cell: Cell) -> dict[str, Any]:
        """The exact request body sent for a cell: scenario request + model + stream + extras."""
        body: dict[str, Any] = {"model": cell.model, "stream": True}
        body.update(self.scenarios[cell.scenario].request)
        body.update(cell.request_extra)
        return body


def load_suite(root: Path, providers_text: str | None = None) -> Suite:
    """Load and check `scenarios.yaml`, `providers.yaml` and `routes.yaml` under `root`; with
    `providers_text`, that text stands in for providers.yaml (a write command checks what it
    would write; `load_routes` takes the same for routes.yaml)."""
    scenarios_doc = _load(root / "scenarios.yaml", "scenarios.schema.json")
    providers_doc = _load(root / "providers.yaml", "providers.schema.json", providers_text)
    scenarios = _scenarios(scenarios_doc["scenarios"])
    providers = {
        key: _provider(key, raw, scenarios) for key, raw in providers_doc["providers"].items()
    }
    for route in (routes := load_routes(root)).values():
        strangers = sorted(set(route.changes) - set(providers))
        if strangers:
            raise ProfileError(
                f"routes.yaml: routes.{route.key}.changes: {strangers} not a provider of "
                f"providers.yaml ({sorted(providers)})"
            )
    offers = [
        offer
        for section in (providers_doc["providers"], providers_doc.get("wire_only", {}))
        for key, raw in section.items()
        for offer in _wire_offers(key, raw.get("wires", {}))
    ]
    return Suite(
        root=root,
        scenarios=scenarios,
        providers=providers,
        routes=routes,
        wire_offers=tuple(offers),
    )


def _scenarios(declared: dict[str, Any]) -> dict[str, Scenario]:
    """scenarios.yaml's scenarios, each expected-output schema checked to be one."""
    scenarios = {
        name: Scenario(
            name=name,
            description=raw["description"],
            request=raw["request"],
            expect=raw["expect"],
            reply=raw["reply"],
        )
        for name, raw in declared.items()
    }
    for name, scenario in scenarios.items():
        _check_schema(scenario.expect, f"scenarios.yaml: scenarios.{name}.expect")
    return scenarios


def _provider(key: str, raw: dict[str, Any], scenarios: dict[str, Scenario]) -> Provider:
    """One profile of providers.yaml, with a cell for every scenario."""
    declared = raw["scenarios"]
    unknown = sorted(set(declared) - set(scenarios))
    if unknown:
        raise ProfileError(
            f"providers.yaml: providers.{key}.scenarios: unknown scenario(s) {unknown}; "
            f"scenarios.yaml defines {sorted(scenarios)}"
        )
    missing = [name for name in scenarios if name not in declared]
    if missing:
        raise ProfileError(
            f"providers.yaml: providers.{key}.scenarios: no entry for {missing}; give each "
            "scenario a provenance, or `not_applicable` with the reason"
        )
    return Provider(
        key=key,
        name=raw["name"],
        base_url=raw["base_url"].rstrip("/"),
        key_env=raw["key_env"],
        model=raw["model"],
        request_extra=raw.get("request_extra", {}),
        evidence=raw["evidence"],
        quirks=_values(raw["quirks"]),
        synthesis=raw.get("synthesis", {}),
        cells={name: _cell(key, raw, name, declared[name]) for name in scenarios},
        quirk_evidence=raw["quirks"],
        waivers={
            (waiver["recording"], quirk): waiver["reason"]
            for waiver in raw.get("waivers", [])
            for quirk in [
                *waiver.get("quirks", []),
                *([STRUCTURE] if "structure" in waiver else []),
            ]
        },
    )


def _cell(key: str, raw: dict[str, Any], name: str, entry: dict[str, Any]) -> Cell:
    """The provider `key`'s cell of scenario `name`: its entry over the profile's defaults."""
    kind = entry.get("provenance", {}).get("kind")
    if kind == "synthesized" and "synthesis" not in raw:
        raise ProfileError(
            f"providers.yaml: providers.{key}.scenarios.{name}: provenance says "
            f"synthesized, but providers.{key} has no `synthesis` block to render it "
            f"from; record it (make record PROVIDER={key} SCENARIO={name} ACCEPT=1) or "
            "mark it `not_applicable` with the reason"
        )
    return Cell(
        provider=key,
        scenario=name,
        not_applicable=entry.get("not_applicable"),
        model=entry.get("model", raw["model"]),
        request_extra={**raw.get("request_extra", {}), **entry.get("request_extra", {})},
        quirks={**_values(raw["quirks"]), **_values(entry.get("quirks", {}))},
        provenance=entry.get("provenance", {}),
    )


def _wire_offers(provider: str, declared: dict[str, dict[str, Any]]) -> list[WireOffer]:
    return [
        WireOffer(
            provider=provider,
            wire=wire,
            endpoint=raw["endpoint"],
            recordings=tuple(raw.get("recordings", ())),
            cases=tuple(raw.get("cases", ())),
            recorded_as=tuple(raw.get("recorded_as", (provider,))),
            documentation=raw.get("documentation", ""),
            reported=raw.get("reported", ""),
            same_request=raw.get("same_request", {}),
            synthesis=raw.get("synthesis"),
        )
        for wire, raw in declared.items()
    ]


def load_routes(root: Path, text: str | None = None) -> dict[str, Route]:
    """`routes.yaml` under `root` (or `text` in its place), checked: its schema, the quirk
    vocabulary of every change, and that `carries_to` names a route of the file."""
    doc = _load(root / "routes.yaml", "routes.schema.json", text)
    vocabulary = format_schema("providers.schema.json")["$defs"]["quirk_values"]["properties"]
    routes = {}
    for key, raw in doc["routes"].items():
        where = f"routes.yaml: routes.{key}"
        target = raw.get("carries_to")
        if target is not None and target not in doc["routes"]:
            raise ProfileError(
                f"{where}.carries_to: {target!r} is not a route of routes.yaml "
                f"({sorted(doc['routes'])})"
            )
        for provider, declared in raw.get("changes", {}).items():
            for quirk, entry in declared.items():
                path = f"{where}.changes.{provider}.{quirk}"
                if quirk not in vocabulary:
                    raise ProfileError(
                        f"{path}: not a quirk; the vocabulary is {sorted(vocabulary)}"
                    )
                value = entry["value"]
                error = best_match(Draft202012Validator(vocabulary[quirk]).iter_errors(value))
                if error is not None:
                    raise ProfileError(f"{path}.value: {error.message}")
        routes[key] = Route(
            key=key,
            kind=raw["kind"],
            name=raw["name"],
            description=raw["description"],
            base_url=raw["base_url"].rstrip("/") if "base_url" in raw else None,
            carries_to=target,
            changes={p: _values(d) for p, d in raw.get("changes", {}).items()},
            change_evidence=raw.get("changes", {}),
        )
    if routes[DIRECT].kind != DIRECT:
        raise ProfileError(f"routes.yaml: routes.{DIRECT}.kind must be {DIRECT!r}")
    return routes


def _values(declared: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The declared quirks without their evidence: quirk -> value."""
    return {quirk: entry["value"] for quirk, entry in declared.items()}


def format_schema(name: str) -> dict[str, Any]:
    """One of the JSON Schemas shipped in `toolcall/schemas/`."""
    schemas = resources.files("toolcall").joinpath("schemas")
    text = schemas.joinpath(name).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _load(path: Path, schema_name: str, text: str | None = None) -> dict[str, Any]:
    """The document at `path` (or `text`, what a write command would put there), checked."""
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ProfileError(f"{path} does not exist") from None
    problem = _problem(text, schema_name)
    if problem is not None:
        raise ProfileError(f"{path.name}: {problem}")
    doc = yaml.load(text, Loader=_ProfileLoader)
    assert isinstance(doc, dict)
    return doc


class _KeyProblem(yaml.YAMLError):
    """A mapping key the profiles cannot take: not a string, or given twice."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")


class _ProfileLoader(SAFE_LOADER):  # type: ignore[misc, valid-type]
    """PyYAML's safe loader, strict about mapping keys. It reads YAML 1.1, where an unquoted
    `yes`, `no`, `on`, `null`, `1` or `0x1f` is a boolean, None or a number: as a route or
    provider name it would pass the schema's name pattern (which checks strings only) and break
    every later sort of the names. And it keeps the last of two equal keys, silently dropping
    the first declaration. Both are refused with the key's line."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        first: dict[str, int] = {}
        for key_node, _value in node.value:
            line = key_node.start_mark.line + 1
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise _KeyProblem(
                    line,
                    f"the key {key_node.value!r} reads as {key!r}, not as a name (YAML 1.1); "
                    f"quote it: '{key_node.value}'",
                )
            if key in first:
                raise _KeyProblem(line, f"duplicate key {key!r} (first at line {first[key]})")
            first[key] = line
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return mapping


@functools.lru_cache(maxsize=16)
def _problem(text: str, schema_name: str) -> str | None:
    """What is wrong with a document, or None; remembered per text, because a test run loads the
    same unchanged files hundreds of times and the schema check is most of a load's cost."""
    try:
        doc = yaml.load(text, Loader=_ProfileLoader)
    except _KeyProblem as exc:
        return str(exc)
    except yaml.YAMLError as exc:
        return f"not valid YAML: {exc}"
    validator = Draft202012Validator(
        format_schema(schema_name), format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    error = best_match(validator.iter_errors(doc))
    if error is None:
        return None
    where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
    return f"{where}: {error.message}"


def _check_schema(schema: dict[str, Any], where: str) -> None:
    problem = _schema_problem(json.dumps(schema, sort_keys=True))
    if problem is not None:
        raise ProfileError(f"{where}: not a valid JSON Schema: {problem}")


@functools.lru_cache(maxsize=64)
def _schema_problem(schema: str) -> str | None:
    try:
        Draft202012Validator.check_schema(json.loads(schema))
    except SchemaError as exc:
        return exc.message
    return None
