"""The user's package-registry settings and the TLS trust they configure.

Where the user's package tools keep their settings: pip's configuration files and npm's
``.npmrc`` files, in each tool's precedence, and npm's case-blind environment settings. The
packages family reads its registries from them (:mod:`octo.packages.endpoints`).

How octo verifies the servers it talks to over TLS: against the operating system's trust
store, plus the certificate authorities the user's package tools are configured with. MCP
clients start servers with a minimal environment, so a CA bundle named only in a shell
variable is not seen; a company CA installed in the system store is, through ``truststore``
(the system's own verification: the OpenSSL store on Linux, Keychain on macOS, the Windows
certificate store), where httpx's default (certifi's bundle) knows only public CAs. The CA
files of pip's ``cert`` and npm's ``cafile`` settings (and ``SSL_CERT_FILE``) are added to it.
"""

from __future__ import annotations

import configparser
import functools
import hashlib
import logging
import os
import re
import shutil
import ssl
from collections.abc import Iterator
from collections.abc import Mapping
from pathlib import Path

import truststore

_ENV_REFERENCE = re.compile(r"\$\{([^}]+)\}")


def env_lookup(env: Mapping[str, str], name: str) -> str | None:
    """A variable by name, ignoring case as npm does (``npm_config_registry``)."""
    if env.get(name):
        return env[name]
    lowered = name.lower()
    for key, value in env.items():
        if key.lower() == lowered and value:
            return value
    return None


def _expand(value: str, env: Mapping[str, str]) -> str:
    return _ENV_REFERENCE.sub(lambda m: env.get(m.group(1), ""), value)


def parse_npmrc(text: str, env: Mapping[str, str]) -> dict[str, str]:
    """``key=value`` pairs of an ``.npmrc`` (ini without sections), ``${VAR}`` expanded."""
    values: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith((";", "#")) or "=" not in line:
            continue
        key, value = (part.strip() for part in line.split("=", 1))
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[_expand(key, env)] = _expand(value, env)
    return values


def _project_prefix(cwd: Path) -> Path:
    """npm's local prefix: the nearest folder holding package.json or node_modules."""
    for folder in (cwd, *cwd.parents):
        if (folder / "package.json").exists() or (folder / "node_modules").exists():
            return folder
    return cwd


def _npm_global_prefix(env: Mapping[str, str]) -> Path | None:
    configured = env_lookup(env, "NPM_CONFIG_PREFIX") or env.get("PREFIX")
    if configured:
        return Path(configured)
    node = shutil.which("node", path=env.get("PATH", ""))
    return Path(node).resolve().parent.parent if node else None


def npmrc_files(env: Mapping[str, str], cwd: Path) -> list[Path]:
    """The project, user and global ``.npmrc`` paths, highest precedence first."""
    home = env.get("HOME") or env.get("USERPROFILE")
    user = env_lookup(env, "NPM_CONFIG_USERCONFIG") or (f"{home}/.npmrc" if home else None)
    global_config = env_lookup(env, "NPM_CONFIG_GLOBALCONFIG")
    if global_config is None and (prefix := _npm_global_prefix(env)) is not None:
        global_config = str(prefix / "etc" / "npmrc")
    project = _project_prefix(cwd) / ".npmrc"
    files = [project]
    if user:
        files.append(Path(user))
    if global_config:
        files.append(Path(global_config))
    unique: list[Path] = []
    for path in files:
        if path not in unique:
            unique.append(path)
    return unique


def pip_config_files(env: Mapping[str, str]) -> list[Path]:
    """pip's configuration files, lowest precedence first (pip lets later files win)."""
    home = env.get("HOME", "")
    xdg_dirs = env.get("XDG_CONFIG_DIRS") or "/etc/xdg"
    files = [Path(d) / "pip" / "pip.conf" for d in xdg_dirs.split(os.pathsep) if d]
    files.append(Path("/etc/pip.conf"))
    if home:
        files.append(Path(home) / ".pip" / "pip.conf")
    config_home = env.get("XDG_CONFIG_HOME") or (f"{home}/.config" if home else "")
    if config_home:
        files.append(Path(config_home) / "pip" / "pip.conf")
    if env.get("VIRTUAL_ENV"):
        files.append(Path(env["VIRTUAL_ENV"]) / "pip.conf")
    if env.get("PIP_CONFIG_FILE") and env["PIP_CONFIG_FILE"] != os.devnull:
        files.append(Path(env["PIP_CONFIG_FILE"]))
    return files


def read_text(path: Path) -> str | None:
    """The text of ``path``; None when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def pip_file_values(path: Path, keys: tuple[str, ...]) -> Iterator[str]:
    """Values of ``keys`` in a pip config file, ``[install]`` before ``[global]``."""
    text = read_text(path)
    if text is None:
        return
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return
    for key in keys:
        for section in ("install", "global"):
            if parser.has_option(section, key):
                yield parser.get(section, key)


logger = logging.getLogger("octo.http")

#: The settings a certificate-verification error's hint names: each adds a CA file.
CA_SETTINGS_HINT = (
    "octo trusts the operating system's certificate store plus the CA files named by pip's "
    "`cert` (PIP_CERT or pip.conf), npm's `cafile` (NPM_CONFIG_CAFILE or .npmrc) and "
    "SSL_CERT_FILE: install your certificate authority in the system store (e.g. "
    "/usr/local/share/ca-certificates and update-ca-certificates) or name its file in one "
    "of these settings."
)


def configured_ca_files(env: Mapping[str, str], cwd: Path) -> list[tuple[Path, str]]:
    """The CA files the user's settings name, each with the setting that names it."""
    found: list[tuple[Path, str]] = []
    for name in ("SSL_CERT_FILE", "PIP_CERT"):
        if env.get(name):
            found.append((Path(env[name]), name))
    for path in reversed(pip_config_files(env)):  # the last file wins in pip
        cert = next(pip_file_values(path, ("cert",)), None)
        if cert:
            found.append((Path(cert), f"cert in {path}"))
            break
    cafile = env_lookup(env, "NPM_CONFIG_CAFILE")
    if cafile:
        found.append((Path(cafile), "NPM_CONFIG_CAFILE"))
    else:
        for path in npmrc_files(env, cwd):
            text = read_text(path)
            value = parse_npmrc(text, env).get("cafile") if text is not None else None
            if value:
                found.append((Path(value).expanduser(), f"cafile in {path}"))
                break
    return found


def ssl_context(env: Mapping[str, str], cwd: Path) -> ssl.SSLContext:
    """A client TLS context: the system trust store and the configured CA files.

    A CA file that cannot be loaded is logged and skipped: the system store still applies.
    A file named by several settings is loaded once, and the runtimes of one process share the
    context of the same CA files while they are unchanged: loading a system bundle costs 20 ms
    of CPU (without CA files a context costs nothing and each runtime gets its own).
    """
    named: dict[Path, str] = {}
    for path, setting in configured_ca_files(env, cwd):
        named.setdefault(path, setting)
    if named:
        try:
            return _trusting(tuple((path, _digest(path)) for path in named))
        except (OSError, ssl.SSLError):
            pass  # built anew below, each file that cannot be loaded logged
    context = truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    for path, setting in named.items():
        try:
            context.load_verify_locations(cafile=str(path))
        except (OSError, ssl.SSLError) as exc:
            logger.warning("cannot load the CA file %s (%s): %s", path, setting, exc)
    return context


def _digest(path: Path) -> bytes | None:
    """What tells a changed file from the one loaded (its times may not: a file rewritten
    within one clock tick keeps them): a hash of its bytes, a hundredth of loading them."""
    try:
        return hashlib.sha256(path.read_bytes()).digest()
    except OSError:
        return None


@functools.lru_cache(maxsize=8)
def _trusting(files: tuple[tuple[Path, bytes | None], ...]) -> ssl.SSLContext:
    """The system store and ``files`` (each with its :func:`_digest`); raises when one
    cannot be loaded, so only a context holding every file is shared."""
    context = truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    for path, _ in files:
        context.load_verify_locations(cafile=str(path))
    return context


def is_verification_failure(exc: BaseException) -> bool:
    """True when ``exc`` (or what caused it) is a failed certificate verification."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLCertVerificationError) or (
            "CERTIFICATE_VERIFY_FAILED" in str(seen)
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
