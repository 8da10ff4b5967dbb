"""Model agents from a spec and one options dict: ``openai:MODEL`` plus options such as
``{"base_url": ..., "setting": "code", "memory": "M2"}`` builds a
:class:`~puzzlegym.agents.native.NativeAgent` or :class:`~puzzlegym.agents.code.CodeAgent`
talking to :class:`~puzzlegym.agents.client.ChatClient`.

The options dict is validated as a whole before anything is built (an unknown or bad option
raises ConfigError naming it and what is allowed; setting "code" where the OS sandbox cannot
run raises :class:`~puzzlegym.sandbox.isolation.SandboxUnavailable`, saying how to install it).
Its public form (:func:`public_options`) masks the key, so it can be written to ``run.json``;
the key itself can also come from the environment (``api_key_env``, default
``OPENAI_API_KEY``), which is how the command line passes it, so it never appears in argument
lists or files.
"""

from __future__ import annotations

import os
from typing import Any

from puzzlegym.agents.client import (
    API_KEY_ENV,
    ChatClient,
    check_endpoint,
    mask_secret,
    mask_url,
)
from puzzlegym.agents.memory import CONDITIONS
from puzzlegym.base.errors import ConfigError

__all__ = [
    "MODEL_PREFIX",
    "SETTINGS",
    "build_model_agent",
    "is_model_spec",
    "model_label",
    "public_options",
]

MODEL_PREFIX = "openai:"
SETTINGS = ("native", "code")

CLIENT_OPTIONS = (
    "base_url",
    "api_key",
    "api_key_env",
    "timeout_s",
    "max_retries",
    "backoff_s",
    "temperature",
    "max_tokens",
)
AGENT_OPTIONS = (
    "memory",
    "rule_card",
    "image_format",
    "image_width",
    "image_quality",
    "history_turns",
    "history_images",
    "max_idle_requests",
)
CODE_OPTIONS = ("code_time_limit_s", "code_memory_mb", "code_output_chars", "code_gui_calls")
OPTIONS = ("setting", *CLIENT_OPTIONS, *AGENT_OPTIONS, *CODE_OPTIONS)


def is_model_spec(spec: str) -> bool:
    return isinstance(spec, str) and spec.startswith(MODEL_PREFIX)


def _model(spec: str) -> str:
    model = spec[len(MODEL_PREFIX) :]
    if not model.strip() or any(c.isspace() for c in model) or len(model) > 200:
        raise ConfigError(
            f"agent: {spec!r} needs a model name without spaces after 'openai:' "
            "(e.g. openai:qwen2.5-vl-7b)"
        )
    return model


def _check(options: dict[str, Any] | None) -> dict[str, Any]:
    options = dict(options or {})
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ConfigError(f"agent option {unknown[0]!r} is unknown; allowed: {', '.join(OPTIONS)}")
    setting = options.get("setting", "native")
    if setting not in SETTINGS:
        raise ConfigError(f"setting: {setting!r} is not allowed; allowed: {', '.join(SETTINGS)}")
    memory = options.get("memory", "M1")
    if memory not in CONDITIONS:
        raise ConfigError(f"memory: {memory!r} is not allowed; allowed: {', '.join(CONDITIONS)}")
    if setting == "native":
        code_only = sorted(k for k in CODE_OPTIONS if options.get(k) is not None)
        if code_only:
            raise ConfigError(f"{code_only[0]}: only applies with setting 'code'")
    else:  # no sandbox, no Code Execution: refused before anything starts
        from puzzlegym.sandbox.isolation import require

        require()
    env_name = options.get("api_key_env")
    if env_name is not None and (
        not isinstance(env_name, str) or not env_name.replace("_", "").isalnum()
    ):
        raise ConfigError(f"api_key_env: {env_name!r} is not an environment variable name")
    check_endpoint(options.get("base_url"), options.get("api_key"), env_name or API_KEY_ENV)
    return options


def model_label(spec: str, options: dict[str, Any] | None = None) -> str:
    """The name records and reports give a model agent: ``openai:MODEL/<setting>/<memory>``
    (``/K1`` with the rule card), so one run can hold several settings of one model."""
    model = _model(spec)
    opts = _check(options)
    label = f"{MODEL_PREFIX}{model}/{opts.get('setting', 'native')}/{opts.get('memory', 'M1')}"
    return label + ("/K1" if opts.get("rule_card") else "")


def public_options(options: dict[str, Any] | None) -> dict[str, Any]:
    """``options`` as files may show them: the key masked, the base URL without credentials."""
    out = dict(options or {})
    if "api_key" in out:
        out["api_key"] = mask_secret(out["api_key"])
    if out.get("base_url"):
        out["base_url"] = mask_url(out["base_url"])
    return out


def build_model_agent(
    spec: str, env_id: str, options: dict[str, Any] | None = None, *, wall_clock: bool = True
):
    """The model agent for ``spec`` (``openai:MODEL``) on objective ``env_id``."""
    model = _model(spec)
    opts = _check(options)
    key = opts.get("api_key")
    if key is None:
        key = os.environ.get(opts.get("api_key_env") or API_KEY_ENV)
    client_kwargs = {
        k: opts[k]
        for k in ("timeout_s", "max_retries", "backoff_s", "temperature", "max_tokens")
        if opts.get(k) is not None
    }
    client = ChatClient(model, opts.get("base_url"), key, **client_kwargs)
    agent_kwargs = {k: opts[k] for k in AGENT_OPTIONS if k in opts}  # history_turns=None: unbounded
    try:
        if opts.get("setting", "native") == "code":
            from puzzlegym.agents.code import CodeAgent

            code_kwargs = {k: opts[k] for k in CODE_OPTIONS if opts.get(k) is not None}
            return CodeAgent(client, env_id, wall_clock=wall_clock, **agent_kwargs, **code_kwargs)
        from puzzlegym.agents.native import NativeAgent

        return NativeAgent(client, env_id, wall_clock=wall_clock, **agent_kwargs)
    except Exception:
        client.close()
        raise
