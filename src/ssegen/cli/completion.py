"""Shell completion of the commands' arguments: provider folders, generated packages, channels.

Completion offers nothing rather than fail: a broken project config or package gives no words.
"""

from __future__ import annotations

from pathlib import Path

import click

from ..config import Config, ConfigError, load_config, override


def _completion_config(ctx: click.Context) -> Config | None:
    """The settings as the command line typed so far gives them (``--specs``, ``--out``), or None
    when the project's config is broken."""
    try:
        return override(load_config(Path.cwd()), specs=ctx.params.get("specs"), out=ctx.params.get("out"))
    except ConfigError:
        return None


def complete_specs_providers(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of PROVIDERS: the folders of the specs folder (``--specs`` or the config's)."""
    from ..discover import provider_names

    config = _completion_config(ctx)
    if config is None:
        return []
    return [name for name in provider_names(config.specs) if name.startswith(incomplete)]


def complete_generated_providers(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of conform's PROVIDER: the generated packages in the output folder (those
    with a ``channels.py``: not its ``_runtime``)."""
    from ..conform import generated_providers

    config = _completion_config(ctx)
    if config is None:
        return []
    return [name for name in generated_providers(config.out) if name.startswith(incomplete)]


def complete_channels(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of conform's CHANNEL: the addresses in the generated package's ``CHANNELS``."""
    from ..conform import ConformError, import_package

    provider = ctx.params.get("provider")
    config = _completion_config(ctx)
    if not provider or config is None:
        return []
    try:
        channels = import_package(config.out, provider).CHANNELS
    except (ConformError, AttributeError):
        return []
    return sorted(address for address in channels if address.startswith(incomplete))
