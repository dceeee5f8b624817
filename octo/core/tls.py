"""How octo verifies the servers it talks to over TLS: against the operating system's trust
store, plus the certificate authorities the user's package tools are configured with.

MCP clients start servers with a minimal environment, so a CA bundle named only in a shell
variable is not seen; a company CA installed in the system store is, through ``truststore``
(the system's own verification: the OpenSSL store on Linux, Keychain on macOS, the Windows
certificate store), where httpx's default (certifi's bundle) knows only public CAs. The CA
files of pip's ``cert`` and npm's ``cafile`` settings (and ``SSL_CERT_FILE``) are added to it.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Mapping
from pathlib import Path

import truststore

from octo.core.registry_files import env_lookup
from octo.core.registry_files import npmrc_files
from octo.core.registry_files import parse_npmrc
from octo.core.registry_files import pip_config_files
from octo.core.registry_files import pip_file_values
from octo.core.registry_files import read_text

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
    """
    context = truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    for path, setting in configured_ca_files(env, cwd):
        try:
            context.load_verify_locations(cafile=str(path))
        except (OSError, ssl.SSLError) as exc:
            logger.warning("cannot load the CA file %s (%s): %s", path, setting, exc)
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
