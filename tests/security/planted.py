"""Secrets of every shape octo must hide, each planted in the line where it is found in the
wild. The values are fake, built from pieces so no scanner takes this file for a leak."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Planted:
    """A secret ``value`` as it appears in ``line`` (``{}`` marks where)."""

    name: str
    line: str
    value: str

    @property
    def text(self) -> str:
        return self.line.format(self.value)


def _chars(seed: str, length: int) -> str:
    """``length`` characters of a mixed alphabet, distinct per ``seed``."""
    alphabet = "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xYz"
    out = []
    state = sum(ord(c) for c in seed)
    for index in range(length):
        state = (state * 31 + index + 7) % 1_000_003
        out.append(alphabet[state % len(alphabet)])
    return "".join(out)


def _hex(seed: str, length: int) -> str:
    return "".join("0123456789abcdef"[ord(c) % 16] for c in _chars(seed, length))


def _upper(seed: str, length: int) -> str:
    return _chars(seed, length).upper()


_JWT = "eyJ" + _chars("jwt1", 20) + ".eyJ" + _chars("jwt2", 30) + "." + _chars("jwt3", 43)

PLANTED: tuple[Planted, ...] = (
    Planted("github classic", "token: {}", "ghp" + "_" + _chars("ghp", 36)),
    Planted("github oauth", 'auth = "{}"', "gho" + "_" + _chars("gho", 36)),
    Planted(
        "github fine-grained",
        "pat {}",
        "github" + "_pat_" + _chars("fg", 22) + "_" + _chars("fg2", 59),
    ),
    Planted("gitlab", "GL={}", "glpat" + "-" + _chars("glpat", 20)),
    Planted("gitlab deploy", "deploy {}", "gldt" + "-" + _chars("gldt", 24)),
    Planted("aws key id", "aws_access_key_id = {}", "AKIA" + _upper("aki", 16)),
    Planted("aws secret ini", "aws_secret_access_key = {}", _chars("awssecret", 40)),
    Planted("aws secret quoted", 'AWS_SECRET_ACCESS_KEY="{}"', _chars("awss2", 40)),
    Planted("slack token", "slack: {}", "xoxb" + "-" + "2" * 11 + "-" + _chars("slack", 24)),
    Planted(
        "slack webhook",
        "url = https://hooks.slack.com/services/{}",
        "T0" + _upper("t", 8) + "/B0" + _upper("b", 8) + "/" + _chars("hook", 24),
    ),
    Planted("stripe", "stripe.api_key = {}", "sk" + "_live_" + _chars("stripe", 24)),
    Planted("sendgrid", "SENDGRID {}", "SG" + "." + _chars("sg1", 22) + "." + _chars("sg2", 43)),
    Planted("twilio", "twilio key {}", "SK" + _hex("twilio", 32)),
    Planted(
        "discord",
        "bot.run({})",
        "M" + _chars("disc1", 23) + "." + _chars("disc2", 6) + "." + _chars("disc3", 27),
    ),
    Planted("google api key", "key={}", "AIza" + _chars("google", 35)),
    Planted(
        "azure storage",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={};EndpointSuffix=core",
        _chars("azure", 86) + "==",
    ),
    Planted("jwt", "cookie {}", _JWT),
    Planted("authorization basic", "Authorization: Basic {}", "dXNlcjpodW50ZXIy" + "c2VjcmV0"),
    Planted("authorization bearer", "Authorization: Bearer {}", _chars("bearer", 32)),
    Planted(
        "url credentials",
        "remote = https://{}@git.example.test/x.git",
        "deploy:" + _chars("urlpw", 16),
    ),
    Planted("npm authToken", "//registry.test/:_authToken={}", _chars("npmrc", 36)),
    Planted("npm token", "NPM {}", "npm" + "_" + _chars("npmtok", 36)),
    Planted("json token", '  "token": "{}",', _chars("jsontok", 24)),
    Planted("json password", '  "password": "{}"', "Pw" + _chars("jsonpw", 14)),
    Planted("yaml client_secret", "  client_secret: {}", _chars("yamlcs", 28)),
    Planted("yaml _PASS", "DB_PASS: {}", "p4" + _chars("yamlpass", 12)),
    Planted("yaml _PASSWORD", "  SMTP_PASSWORD: {}", "s3" + _chars("smtp", 14)),
    Planted("GITHUB_TOKEN quoted", 'GITHUB_TOKEN="{}"', _chars("ghtokenenv", 30)),
    Planted("_TOKEN assignment", "export DEPLOY_TOKEN={}", _chars("deploytok", 26)),
    Planted("_SECRET assignment", "APP_SECRET={}", _chars("appsecret", 26)),
    Planted("_KEY assignment", "SIGNING_KEY={}", _chars("signkey", 26)),
    Planted("_PASSWORD assignment", "DB_PASSWORD={}", "x9" + _chars("dbpw", 14)),
    Planted("terraform token", '  token = "{}"', _chars("tftoken", 30)),
    Planted("CRLF env line", "API_SECRET={}\r", _chars("crlf", 26)),
    Planted("openai", "OPENAI {}", "sk-proj-" + _chars("openai", 40)),
    Planted("pypi token", "password = {}", "pypi-AgE" + _chars("pypi", 60)),
    Planted("netrc", "machine git.test login bot password {}", _chars("netrc", 20)),
    Planted("unpacked pair", 'user, password = "wile", "{}"', _chars("unpacked", 18)),
    Planted("auth pair", "sim_auth = ('bot@mail.test', '{}')", _chars("authpair", 18)),
    Planted("basic auth call", 'auth=HTTPBasicAuth("bot", "{}")', _chars("basicauth", 18)),
    Planted("client login", "smtp.login('bot', '{}')", _chars("smtplogin", 18)),
    Planted("node auth option", "  auth: 'bot:{}',", _chars("nodeauth", 18)),
)

#: Private keys of four kinds, as files hold them.
KEY_KINDS = ("RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "PGP PRIVATE KEY BLOCK", "EC PRIVATE KEY")


def private_key(kind: str) -> tuple[str, list[str]]:
    """A fake private-key block of ``kind`` and its body lines (the secret part)."""
    width = 70 if kind.startswith("OPENSSH") else 64
    body = [_chars(f"{kind}{n}", width) for n in range(6)]
    body.append(_chars(f"{kind}-last", 23) + "==")
    header = ["Version: Test 1", ""] if kind.startswith("PGP") else []
    lines = [f"-----BEGIN {kind}-----", *header, *body, f"-----END {kind}-----"]
    return "\n".join(lines) + "\n", body
