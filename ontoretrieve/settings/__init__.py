"""Settings: one pydantic-settings model, a nested group per pipeline stage.

Where a value comes from, highest precedence first:

1. keyword arguments (``load_settings(fusion={"top_k": 20})``),
2. ``ONTORETRIEVE_*`` environment variables, nested with ``__``
   (``ONTORETRIEVE_FUSION__TOP_K=20``),
3. the reference system's environment names (``VECTOR_STORE_TOP_K=20``), so a
   configuration carries over unchanged,
4. a TOML file (``ontoretrieve.toml`` in the working directory, or the file
   named by ``ONTORETRIEVE_CONFIG``), with stage tables (``[fusion]``) or the
   reference names as top-level keys,
5. the defaults. Where a benchmark showed a better result they moved away from
   the reference; the shipped profile ``reference`` (``--config reference``,
   ``ontoretrieve/profiles/reference.toml``) sets the reference values back.

A wrong value fails at start with the setting's name, its reference name and
why:

>>> load_settings(fusion={"top_k": 0})
Traceback (most recent call last):
...
ontoretrieve.errors.SettingsError: invalid settings:
  fusion.top_k (VECTOR_STORE_TOP_K) = 0 from init: Input should be greater than or equal to 1
>>> load_settings().fusion.core_weight
0.7
"""

from __future__ import annotations

import difflib
import logging
import os
import tomllib
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)
from pydantic_settings import SettingsError as PydanticSettingsError

from ontoretrieve.errors import SettingsError
from ontoretrieve.settings.groups import (
    CatalogSettings,
    ContextSettings,
    CriticSettings,
    EmbedSettings,
    ExpandSettings,
    FusionSettings,
    IndexSettings,
    MentionSettings,
    SeedSettings,
    ServerSettings,
    StoreSettings,
    TriggerSettings,
    VectorIndexSettings,
    WindowSettings,
)
from ontoretrieve.settings.tenants import (
    TenantSettings,
    require_tenant,
    validate_tenant_id,
)

__all__ = [
    "ENV_PREFIX",
    "Settings",
    "load_settings",
    "profile_names",
    "profile_path",
    "reference_names",
    "setting_origins",
    "unknown_environment",
]

log = logging.getLogger(__name__)

ENV_PREFIX = "ONTORETRIEVE_"
CONFIG_ENV = "ONTORETRIEVE_CONFIG"
DEFAULT_CONFIG_FILE = "ontoretrieve.toml"
PROFILES_DIR = Path(__file__).parents[1] / "profiles"
"""Shipped settings profiles; ``--config NAME`` takes one by name."""

# The TOML file of the settings being built; read by settings_customise_sources,
# which pydantic-settings calls without a way to pass arguments.
_config_file: ContextVar[Path | None] = ContextVar("_config_file", default=None)


class Settings(BaseSettings):
    """The effective configuration of one ontoretrieve process."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter="__",
        extra="forbid",
        validate_default=True,
    )

    data_dir: Path = Path(".ontoretrieve")
    """Where the embedded triple store and vector index live."""

    catalog: CatalogSettings = CatalogSettings()
    store: StoreSettings = StoreSettings()
    index: IndexSettings = IndexSettings()
    embed: EmbedSettings = EmbedSettings()
    vector_index: VectorIndexSettings = VectorIndexSettings()
    triggers: TriggerSettings = TriggerSettings()
    windows: WindowSettings = WindowSettings()
    fusion: FusionSettings = FusionSettings()
    mentions: MentionSettings = MentionSettings()
    seeds: SeedSettings = SeedSettings()
    expand: ExpandSettings = ExpandSettings()
    context: ContextSettings = ContextSettings()
    critic: CriticSettings = CriticSettings()
    server: ServerSettings = ServerSettings()
    tenants: dict[str, TenantSettings] = {}
    """Declared tenants (``[tenants.NAME]``); ``default`` always exists."""

    @field_validator("tenants")
    @classmethod
    def _tenant_ids(cls, value: dict[str, TenantSettings]) -> dict[str, TenantSettings]:
        for name in value:
            validate_tenant_id(name)
        for name in value:
            require_tenant(value, name)  # unknown includes and cycles fail at start
        owners: dict[str, str] = {}
        for name, tenant in value.items():
            key = tenant.api_key.get_secret_value() if tenant.api_key else None
            if key is None:
                continue
            if not key.strip():
                raise ValueError(f"tenant {name!r} has an empty api_key (leave it out for "
                                 "no key)")
            if key in owners:  # one key would reach only the first tenant that has it
                raise ValueError(f"tenants {owners[key]!r} and {name!r} have the same "
                                 "api_key: give each its own")
            owners[key] = name
        return value

    @field_validator("data_dir")
    @classmethod
    def _some_data_dir(cls, value: Path) -> Path:
        if not str(value).strip() or str(value) == ".":
            raise ValueError("the data directory is empty or '.': name a folder (an empty "
                             "ONTORETRIEVE_DATA_DIR would write the stores into the "
                             "working directory)")
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (
            init_settings,
            env_settings,
            ReferenceEnvSource(settings_cls),
            TomlFileSource(settings_cls, _config_file.get()),
        )


def reference_names() -> dict[str, tuple[str, str]]:
    """Map each reference setting name to its (group, field) in ``Settings``.

    The names are declared once, on the fields themselves.

    >>> reference_names()["VECTOR_STORE_FUSION_RANK_CONSTANT"]
    ('fusion', 'rank_constant')
    """
    table: dict[str, tuple[str, str]] = {}
    for group_name, group_field in Settings.model_fields.items():
        group_type = group_field.annotation
        if not (isinstance(group_type, type) and issubclass(group_type, BaseModel)):
            continue
        for field_name, field in group_type.model_fields.items():
            extra = field.json_schema_extra
            if isinstance(extra, dict) and isinstance(extra.get("reference"), str):
                table[str(extra["reference"])] = (group_name, field_name)
    return table


class ReferenceEnvSource(PydanticBaseSettingsSource):
    """Environment variables under the reference system's names."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # unused: __call__ builds the whole dict

    def __call__(self) -> dict[str, Any]:
        return _nest_reference_keys(os.environ)


class TomlFileSource(PydanticBaseSettingsSource):
    """A TOML file with stage tables or reference names as top-level keys."""

    def __init__(self, settings_cls: type[BaseSettings], path: Path | None) -> None:
        super().__init__(settings_cls)
        self.path = path

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # unused: __call__ builds the whole dict

    def __call__(self) -> dict[str, Any]:
        if self.path is None:
            return {}
        try:
            raw = tomllib.loads(self.path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise SettingsError(f"config file {self.path}: cannot read: {exc}") from exc
        except tomllib.TOMLDecodeError as exc:
            raise SettingsError(f"config file {self.path}: {exc}") from exc
        names = reference_names()
        plain = {k: v for k, v in raw.items() if k not in names}
        return _deep_merge(plain, _nest_reference_keys(raw))


def _nest_reference_keys(source: Mapping[str, Any]) -> dict[str, Any]:
    nested: dict[str, dict[str, Any]] = {}
    for name, (group, field) in reference_names().items():
        if name in source:
            nested.setdefault(group, {})[field] = source[name]
    return dict(nested)


def _deep_merge(low: dict[str, Any], high: dict[str, Any]) -> dict[str, Any]:
    merged = dict(low)
    for key, value in high.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def profile_path(name: str) -> Path | None:
    """The shipped settings profile called ``name``, if there is one.

    >>> profile_path("reference").name, profile_path("nope")
    ('reference.toml', None)
    """
    path = PROFILES_DIR / f"{name}.toml"
    return path if name.isidentifier() and path.is_file() else None


def profile_names() -> list[str]:
    """The shipped profiles (``reference``: the reference behaviour)."""
    return sorted(p.stem for p in PROFILES_DIR.glob("*.toml"))


def _config_path(given: str, named_as: str) -> Path:
    """A config file path, or a shipped profile's name; ``named_as`` for the error."""
    path = Path(given)
    if not path.is_file():
        path = profile_path(given) or path
    if not path.is_file():
        raise SettingsError(f"{named_as}: no such file (nor a shipped profile: "
                            f"{', '.join(profile_names())})")
    return path


def _resolve_config_file(config_file: Path | str | None) -> Path | None:
    if config_file is not None:
        return _config_path(str(config_file), f"config file {config_file}")
    named = os.environ.get(CONFIG_ENV)
    if named:
        return _config_path(named, f"{CONFIG_ENV}={named}")
    default = Path(DEFAULT_CONFIG_FILE)
    return default if default.is_file() else None


def load_settings(config_file: Path | str | None = None, **overrides: Any) -> Settings:
    """Build the effective settings, or raise ``SettingsError`` naming what is wrong.

    ``overrides`` take precedence over everything else; nested groups may be
    given as dicts, which are merged field by field over the lower sources.

    >>> load_settings(seeds={"max_atoms": 50}).seeds.max_atoms
    50
    """
    path = _resolve_config_file(config_file)
    for warning in unknown_environment(os.environ):
        log.warning(warning)
    token = _config_file.set(path)
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        origins = _origins(path, overrides)
        raise SettingsError(_describe_validation_error(exc, origins)) from None
    except UnicodeDecodeError as exc:
        raise SettingsError(f"the settings file {path} is not UTF-8 text (byte "
                            f"{exc.start}): is it a TOML file?") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"the settings file {path} is not valid TOML: {exc}") from None
    except PydanticSettingsError as exc:
        # pydantic-settings says which field and source but not what was wrong: the
        # cause is a value that is not JSON where a table (tenants) or list is expected.
        cause = f": {exc.__cause__}" if exc.__cause__ else ""
        raise SettingsError(f"{exc}{cause} (a table or list setting given in the "
                            "environment must be JSON)") from None
    finally:
        _config_file.reset(token)


_NOT_SETTINGS = {"ONTORETRIEVE_CONFIG", "ONTORETRIEVE_TENANT", "ONTORETRIEVE_API_KEY",
                 "ONTORETRIEVE_CRASH_AT"}
"""Variables the CLI and the crash tests read that are not settings."""


def unknown_environment(environ: Mapping[str, str]) -> list[str]:
    """A warning per ``ONTORETRIEVE_*`` variable that names no setting (it would be
    ignored without a word), with the closest setting's variable.

    >>> found = unknown_environment({"ONTORETRIEVE_FUSION__TOPK": "7",
    ...                              "ONTORETRIEVE_SEEDS__CUT": "cap"})
    >>> found == ["ONTORETRIEVE_FUSION__TOPK names no setting and is ignored "
    ...           "(did you mean ONTORETRIEVE_FUSION__TOP_K?)"]
    True
    """
    known = {"ONTORETRIEVE_DATA_DIR", "ONTORETRIEVE_TENANTS", *_NOT_SETTINGS}
    for group, field in Settings.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            known |= {f"ONTORETRIEVE_{group}__{name}".upper()
                      for name in annotation.model_fields}
    warnings = []
    for name in sorted(environ):
        upper = name.upper()
        if not upper.startswith("ONTORETRIEVE_") or upper in known or (
                upper.startswith("ONTORETRIEVE_TENANTS__")):
            continue
        close = difflib.get_close_matches(upper, sorted(known), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        warnings.append(f"{name} names no setting and is ignored{hint}")
    return warnings


def setting_origins(
    config_file: Path | str | None = None, **overrides: Any
) -> dict[str, str]:
    """Say where each effective setting came from, by dotted field path.

    Origins are ``init``, ``env ONTORETRIEVE_…``, ``env VECTOR_STORE_…`` (a
    reference name), ``file PATH`` or ``default``.

    >>> setting_origins(fusion={"top_k": 7})["fusion.top_k"]
    'init'
    """
    return _origins(_resolve_config_file(config_file), overrides)


def _origins(path: Path | None, overrides: Mapping[str, Any]) -> dict[str, str]:
    names = {v: k for k, v in reference_names().items()}
    env_paths = _env_paths()
    layers: list[tuple[str, set[str]]] = [
        ("init", set(_leaf_paths(dict(overrides)))),
        ("env", set(env_paths)),
        ("reference", set(_leaf_paths(_nest_reference_keys(os.environ)))),
    ]
    if path is not None:
        token = _config_file.set(path)
        try:
            layers.append((f"file {path}", set(_leaf_paths(TomlFileSource(Settings, path)()))))
        finally:
            _config_file.reset(token)
    origins: dict[str, str] = {}
    for leaf in _leaf_paths(Settings.model_construct().model_dump()):
        origin = "default"
        for label, paths in layers:
            if leaf in paths or any(p.startswith(leaf + ".") for p in paths):
                origin = label
                break
        if origin == "env":
            origin = f"env {env_paths[leaf]}"
        elif origin == "reference":
            group, field = leaf.split(".", 1)
            origin = f"env {names[(group, field)]}"
        origins[leaf] = origin
    return origins


def _env_paths() -> dict[str, str]:
    """Dotted setting path -> the ONTORETRIEVE_ variable that sets it."""
    found: dict[str, str] = {}
    for key in os.environ:
        if key.startswith(ENV_PREFIX) and key != CONFIG_ENV:
            dotted = key[len(ENV_PREFIX):].lower().replace("__", ".")
            found[dotted] = key
    return found


def _leaf_paths(data: Mapping[str, Any], prefix: str = "") -> Iterator[str]:
    for key, value in data.items():
        if isinstance(value, BaseModel):
            value = value.model_dump(exclude_unset=True)
        if isinstance(value, Mapping) and value:
            yield from _leaf_paths(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}"


def _describe_validation_error(exc: ValidationError, origins: Mapping[str, str]) -> str:
    names = {v: k for k, v in reference_names().items()}
    lines = ["invalid settings:"]
    for err in exc.errors():
        loc = [str(part) for part in err["loc"]]
        dotted = ".".join(loc) if loc else "settings"
        where = ".".join(loc[:2])
        ref = names.get((loc[0], loc[1])) if len(loc) >= 2 else None
        label = f"{dotted} ({ref})" if ref else dotted
        value = err.get("input")
        shown = "" if isinstance(value, dict) else f" = {value!r}"
        # A check over a whole group (loc of one part) has no single source.
        source = f" from {origins.get(where, 'init')}" if len(loc) >= 2 else ""
        lines.append(f"  {label}{shown}{source}: {err['msg']}")
    return "\n".join(lines)
