"""TLS behind a company certificate authority: an MCP stdio session started with nothing but
PATH and HOME (as MCP clients start servers) reaches a registry whose certificate a private CA
signed, once that CA is in the operating system's store; and a CA file named by npm's
``cafile`` is trusted too. A verification failure's hint names the settings that fix it. A CA
file is loaded once per process while it is unchanged, whatever number of settings name it."""

from __future__ import annotations

import datetime
import ipaddress
import json
import logging
import os
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from mcp import Client
from mcp import StdioServerParameters

from octo import Gateway
from octo.core.config import Config
from octo.core.registries import ssl_context

RECORDING = Path(__file__).parent / "recordings" / "npm-packument.json"
SYSTEM_CAS = Path("/usr/local/share/ca-certificates")


@dataclass(frozen=True)
class Authority:
    """A private CA and a server certificate it signed for 127.0.0.1, as PEM files."""

    ca: Path
    cert: Path
    key: Path


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def make_authority(folder: Path) -> Authority:
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("octo test CA"))
        .issuer_name(_name("octo test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name("127.0.0.1"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    found = Authority(folder / "ca.pem", folder / "cert.pem", folder / "key.pem")
    found.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    found.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    found.key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return found


class _Registry(BaseHTTPRequestHandler):
    """Answers every GET with the recorded left-pad packument."""

    def do_GET(self) -> None:
        [interaction] = json.loads(RECORDING.read_text(encoding="utf-8"))["interactions"]
        body = json.dumps(interaction["response"]["body"]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return None


@pytest.fixture
def authority(tmp_path: Path) -> Authority:
    return make_authority(tmp_path)


@pytest.fixture
def registry(authority: Authority) -> Iterator[str]:
    """An HTTPS npm registry on 127.0.0.1 with a certificate of the private CA; its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Registry)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(authority.cert, authority.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    # shutdown() waits for the next poll: 0.05 s, not the default 0.5 s.
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def in_system_store(authority: Authority) -> Iterator[None]:
    """The private CA installed in the operating system's store for the test, then removed."""
    tool = shutil.which("update-ca-certificates")
    if os.geteuid() != 0 or tool is None or not SYSTEM_CAS.is_dir():
        if os.environ.get("CI"):
            pytest.fail("CI runs as root with update-ca-certificates (Debian's ca-certificates)")
        pytest.skip("needs root and update-ca-certificates")
    installed = SYSTEM_CAS / f"octo-test-{uuid.uuid4().hex}.crt"
    shutil.copyfile(authority.ca, installed)
    try:
        subprocess.run([tool], check=True, capture_output=True, timeout=120)
        yield
    finally:
        installed.unlink()
        subprocess.run([tool], check=True, capture_output=True, timeout=120)


def _home(tmp_path: Path, registry: str, *extra: str) -> Path:
    """A HOME whose .npmrc names ``registry`` (and ``extra`` lines)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".npmrc").write_text("\n".join([f"registry={registry}", *extra]) + "\n")
    return home


@pytest.mark.slow
async def test_a_stdio_session_with_path_and_home_only_trusts_the_system_store(
    tmp_path: Path, registry: str, in_system_store: None
) -> None:
    home = _home(tmp_path, registry)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "octo", "serve"],
        env={"PATH": os.environ["PATH"], "HOME": str(home)},
        cwd=str(home),
    )
    async with Client(params) as client:
        result = await client.call_tool(
            "packageSearch", {"queries": [{"name": "left-pad", "ecosystem": "npm"}]}
        )
    assert result.structured_content is not None
    [row] = result.structured_content["results"]
    assert row["status"] == "success", row


@pytest.mark.slow
async def test_npm_cafile_is_trusted_and_a_failure_names_the_settings(
    tmp_path: Path, registry: str, authority: Authority
) -> None:
    query = {"name": "left-pad", "ecosystem": "npm"}
    home = _home(tmp_path, registry, f"cafile={authority.ca}")
    env = {"HOME": str(home), "PATH": ""}
    async with Gateway(Config.from_env(env)) as gateway:
        trusted = await gateway.package_search([query])
    assert trusted.results[0].status == "success", trusted.results[0].error
    (home / ".npmrc").write_text(f"registry={registry}\n")
    async with Gateway(Config.from_env(env)) as gateway:
        untrusted = await gateway.package_search([query])
    [result] = untrusted.results
    assert result.status == "error"
    assert "CERTIFICATE_VERIFY_FAILED" in str(result.error)
    assert any(
        "system store" in hint and "cafile" in hint and "PIP_CERT" in hint for hint in result.hints
    )


def _trusts(context: ssl.SSLContext, url: str) -> bool:
    """Whether a TLS handshake with ``url``'s server verifies under ``context``."""
    with socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1].strip("/")))) as raw:
        try:
            with context.wrap_socket(raw, server_hostname="127.0.0.1"):
                return True
        except ssl.SSLCertVerificationError:
            return False


def test_runtimes_share_the_context_of_unchanged_ca_files(
    tmp_path: Path, registry: str, authority: Authority
) -> None:
    (tmp_path / "other").mkdir()
    named = tmp_path / "named.pem"
    shutil.copyfile(make_authority(tmp_path / "other").ca, named)
    env = {"HOME": str(tmp_path), "PATH": "", "SSL_CERT_FILE": str(named)}
    shared = ssl_context(env, tmp_path)
    assert ssl_context(dict(env), tmp_path) is shared
    assert not _trusts(shared, registry)
    # The file now holds the registry's CA: the next runtime's context trusts it.
    shutil.copyfile(authority.ca, named)
    assert _trusts(ssl_context(env, tmp_path), registry)


def test_a_ca_file_named_by_several_settings_is_loaded_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    missing = tmp_path / "missing.pem"
    env = {"HOME": str(tmp_path), "PATH": "", "SSL_CERT_FILE": str(missing)}
    env |= {"PIP_CERT": str(missing), "NPM_CONFIG_CAFILE": str(missing)}
    with caplog.at_level(logging.WARNING, logger="octo.http"):
        ssl_context(env, tmp_path)
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == [
        f"cannot load the CA file {missing}"
    ]
