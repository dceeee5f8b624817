"""The command line face: ``octo tools``, ``octo call``, ``octo serve``, ``octo hosts``,
``octo docs``.

Only ``octo serve`` imports the MCP SDK, so the other commands start fast.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any
from typing import NoReturn

import anyio

import octo
from octo.core import VERSION as __version__
from octo.core.config import Config
from octo.core.config import ConfigError
from octo.core.config import parse_toolsets
from octo.faces.cli.readable import render_readable

EXIT_OK = 0
EXIT_ALL_FAILED = 1
EXIT_BAD_CALL = 2
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: what is wrong, and where the usage is."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_CALL, f"{self.prog}: {message} (see `{self.prog} --help`)\n")


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0-65535 (0: any free port), got {text!r}")
    return port


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="octo",
        description="Bulk-query research gateway: local code, GitHub, packages and LSP.",
    )
    parser.add_argument("--version", action="version", version=f"octo {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    tools = commands.add_parser(
        "tools",
        help="list the tools, or show one tool's reference",
        description="Without NAME: every tool with its category, query limit and summary. "
        "With NAME: that tool's parameters (type, default, range), an example and its shapes.",
    )
    tools.add_argument("name", nargs="?", metavar="NAME", help="a tool, e.g. localSearchCode")

    call = commands.add_parser(
        "call",
        help="run one tool with 1-N queries",
        description="Run TOOL with the given queries and print one result per query.",
    )
    call.add_argument("tool", metavar="TOOL", help="tool name, e.g. localSearchCode")
    call.add_argument(
        "-q",
        "--query",
        dest="queries",
        action="append",
        required=True,
        metavar="JSON",
        help="one query as a JSON object (repeat for more); @FILE reads a JSON object or list",
    )
    call.add_argument(
        "--json", action="store_true", help="print exactly the bulk response as JSON on stdout"
    )
    _no_wait_option(call)
    _root_option(
        call, "allowed root for local paths (repeatable; default OCTO_ROOTS, else the cwd)"
    )

    serve = commands.add_parser("serve", help="run the MCP server (stdio unless --http)")
    serve.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp")
    serve.add_argument(
        "--sse",
        action="store_true",
        help="with --http, also the legacy HTTP+SSE transport at /sse (same token and checks)",
    )
    serve.add_argument(
        "--toolsets",
        metavar="LIST",
        help="publish only these tool families (comma-separated: local, lsp, semantic, github, "
        "packages, discovery; default OCTO_TOOLSETS, else all)",
    )
    serve.add_argument("--host", default="127.0.0.1", help="HTTP host (default 127.0.0.1)")
    serve.add_argument(
        "--port", type=_port, default=8000, help="HTTP port (default 8000; 0: any free port)"
    )
    serve.add_argument(
        "--token-file",
        type=Path,
        metavar="PATH",
        help="file holding the bearer token HTTP clients must send (default OCTO_HTTP_TOKEN)",
    )
    serve.add_argument(
        "--allow-host",
        dest="allow_hosts",
        action="append",
        default=[],
        metavar="NAME",
        help="another name clients reach the HTTP server by (Host/Origin check; repeatable)",
    )
    serve.add_argument(
        "--insecure-no-auth",
        action="store_true",
        help="serve HTTP beyond this machine without a token (anyone reaching the port may call)",
    )

    index = commands.add_parser(
        "index",
        help="build or update the semantic index of a directory (waits for every vector)",
        description="Index PATH for semanticSearchCode, incrementally, with a progress bar on a"
        " terminal; answers once every chunk has its vector (--no-wait: the keyword side only).",
    )
    _no_wait_option(index)
    index.add_argument("path", metavar="PATH", help="directory to index")
    index.add_argument("--name", help="index name (default: folder name + short path hash)")
    _root_option(index, "allowed root (repeatable; default OCTO_ROOTS, else PATH itself)")

    commands.add_parser(
        "hosts",
        help="list the code hosts of the hosts file and whether each token works",
        description="The hosts of OCTO_HOSTS_FILE, each checked with one authenticated call to "
        "its own API host; tokens are never printed. Exit 1 when a token does not work.",
    )
    docs = commands.add_parser(
        "docs",
        help="(developers) write a checkout's docs/tools.md from the registry",
        description="In a checkout of octo: write its docs/tools.md, tools/list snapshot, "
        "README's languages and docs/architecture.md's tree of modules. "
        "Anywhere: --output PATH writes the reference to PATH (- prints it).",
    )
    docs.add_argument("--check", action="store_true", help="fail if the file is out of date")
    docs.add_argument(
        "--output", metavar="PATH", help="write only the reference here (- : standard output)"
    )
    lsp = commands.add_parser(
        "lsp",
        help="list the configured language servers; `octo lsp check FILE` tries one",
        description="Without arguments: every configured language server (built-in and from "
        "OCTO_LSP_SERVERS_FILE), its languages, and where its command was found. "
        "`check FILE`: start FILE's server and print what it offers and answers.",
    )
    lsp.add_argument("action", nargs="?", choices=["check"], help="check: try FILE's server")
    lsp.add_argument("file", nargs="?", metavar="FILE", help="the file `check` opens")
    _root_option(lsp, "allowed root for FILE (default: OCTO_ROOTS, else FILE's folder)")
    return parser


def _no_wait_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-wait",
        action="store_true",
        help="semanticIndexCodebase: answer once the keyword side is written (no vectors wait)",
    )


def _root_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    parser.add_argument("--root", dest="roots", action="append", metavar="PATH", help=help_text)


def _load_queries(raw_queries: Sequence[str]) -> list[Any]:
    """Each ``--query`` is a JSON object or a list of them, inline or from ``@file``."""
    queries: list[Any] = []
    for raw in raw_queries:
        text = Path(raw[1:]).read_text(encoding="utf-8") if raw.startswith("@") else raw
        value = json.loads(text)
        if isinstance(value, list):
            queries.extend(value)
        else:
            queries.append(value)
    return queries


def _tools(name: str | None) -> int:
    from octo.core.errors import CallError
    from octo.faces.tool_docs import summary
    from octo.faces.tool_docs import tool_reference
    from octo.registry import all_tools
    from octo.registry import get_tool

    if name is not None:
        try:
            spec = get_tool(name)
        except CallError as exc:
            print("\n".join([f"octo: {exc.message}", *exc.hints]), file=sys.stderr)
            return EXIT_BAD_CALL
        print(tool_reference(spec), end="")
        return EXIT_OK
    specs = all_tools()
    name_width = max(len(spec.name) for spec in specs)
    category_width = max(len(spec.category.value) for spec in specs)
    width = max(72, min(120, shutil.get_terminal_size((100, 24)).columns))
    for spec in specs:
        head = (
            f"{spec.name:<{name_width}}  {spec.category.value:<{category_width}}"
            f"  max {spec.max_queries}  "
        )
        print(
            textwrap.fill(
                summary(spec),
                width=width,
                initial_indent=head,
                subsequent_indent=" " * len(head),
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
    print(f"\n{len(specs)} tools. `octo tools NAME` shows one tool's parameters and an example.")
    return EXIT_OK


#: What a path outside the allowed roots needs said on the command line.
ROOT_HINT = "From the command line, --root PATH allows another root for one call (repeatable)."


async def _call(
    config: Config, tool: str, queries: list[Any], roots: list[str] | None, args: argparse.Namespace
) -> int:
    from octo.core.errors import CallError
    from octo.core.errors import ErrorCode
    from octo.core.shared.disk_handles import DiskHandleStore
    from octo.core.shared.disk_handles import default_folder
    from octo.faces.cli.index_progress import INDEX_TOOL
    from octo.faces.cli.index_progress import ProgressPrinter
    from octo.faces.cli.index_progress import waiting
    from octo.faces.library import Gateway
    from octo.registry import get_tool

    progress = ProgressPrinter(sys.stderr, bar=sys.stderr.isatty())
    try:
        spec = get_tool(tool)
        indexing = spec.name == INDEX_TOOL
        if indexing:  # from the command line an index ends fully embedded
            queries = waiting(queries, args.no_wait)
        # Each call is its own process: handles live on disk for the next call to read.
        handles = DiskHandleStore(default_folder(), config.handle_ttl)
        async with Gateway(config, roots=roots, handles=handles) as gateway:
            response = await gateway.call(spec, queries, progress=progress if indexing else None)
    except CallError as exc:
        progress.close()
        print("\n".join([f"octo: {exc.message}", *exc.hints]), file=sys.stderr)
        return EXIT_BAD_CALL
    progress.close()
    for result in response.results:
        if result.error is not None and result.error.code is ErrorCode.PATH_NOT_ALLOWED:
            result.hints.append(ROOT_HINT)
    print(response.to_compact_json() if args.json else render_readable(response.to_wire()))
    return EXIT_ALL_FAILED if response.all_failed else EXIT_OK


def _check_hosts_file(config: Config) -> None:
    """A hosts file's mistakes stop every command at start-up (ConfigError naming the line);
    without one, the code-host family is not imported."""
    if config.env.get("OCTO_HOSTS_FILE"):
        from octo.codehosts.hosts.hosts_file import read_hosts

        read_hosts(config.env)


def _hosts(config: Config) -> int:
    """``octo hosts``: each configured code host and whether its token works."""
    from octo.faces.cli.hosts_check import hosts_report

    lines, healthy = anyio.run(hosts_report, config)
    print("\n".join(lines))
    return EXIT_OK if healthy else EXIT_ALL_FAILED


def _index(config: Config, args: argparse.Namespace) -> int:
    """``octo index PATH``: semanticIndexCodebase waiting for every vector, with progress."""
    from octo.faces.cli.index_progress import run_index

    # Absolute before it is both the root and the query's path: a relative PATH would
    # otherwise be read again under itself (SUBDIR/SUBDIR).
    path = str(Path(args.path).resolve())
    response = anyio.run(run_index, config, path, args.name, args.roots, args.no_wait)
    print(render_readable(response.to_wire()))
    return EXIT_ALL_FAILED if response.all_failed else EXIT_OK


def _serve(config: Config, args: argparse.Namespace) -> int:
    from octo.faces.http.access import HttpAccess
    from octo.faces.http.access import HttpAccessError
    from octo.faces.mcp import serve

    try:
        _check_servers_file(config)
    except ConfigError as exc:
        print(f"octo: {exc}", file=sys.stderr)
        return EXIT_BAD_CALL
    if args.toolsets is not None:
        try:
            toolsets = parse_toolsets(args.toolsets, "--toolsets")
        except ConfigError as exc:
            print(f"octo: {exc}", file=sys.stderr)
            return EXIT_BAD_CALL
        config = replace(config, toolsets=toolsets)
    try:
        if args.http:
            where = f"{args.host} port {args.port}"
            try:
                # Refused before anything listens: a public port never opens without a token.
                access = HttpAccess.configure(
                    args.host,
                    args.port,
                    config.env,
                    token_file=args.token_file,
                    allow_hosts=args.allow_hosts,
                    insecure_no_auth=args.insecure_no_auth,
                )
                sock = serve.listen(args.host, args.port)
            except HttpAccessError as exc:
                print(f"octo: {exc}", file=sys.stderr)
                return EXIT_BAD_CALL
            except OSError as exc:
                reason = exc.strerror or str(exc)
                print(f"octo serve: cannot listen on {where}: {reason}", file=sys.stderr)
                return EXIT_BAD_CALL
            with sock:
                anyio.run(serve.serve_http, sock, access, config, args.sse)
        else:
            anyio.run(serve.serve_stdio, config)
    except ConfigError as exc:  # a setting read as the server starts
        print(f"octo: {exc}", file=sys.stderr)
        return EXIT_BAD_CALL
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return EXIT_OK


def checkout_root() -> Path | None:
    """The checkout this octo is imported from (its pyproject.toml names octo-gateway), or None
    for an installed package: `octo docs` writes a checkout's files, never a site-packages'."""
    root = Path(octo.__file__).resolve().parents[1]
    project = root / "pyproject.toml"
    try:
        named = 'name = "octo-gateway"' in project.read_text(encoding="utf-8")
    except OSError:
        return None
    return root if named else None


def _docs(output: str | None, check: bool) -> int:
    """docs/tools.md and the published tools/list snapshot of a checkout, both from the
    registry, README's languages and docs/architecture.md's tree (from the modules); or the
    reference alone to ``output``."""
    from octo.faces.mcp import tools_snapshot
    from octo.faces.mcp.server import render_snapshot
    from octo.faces.module_tree import architecture_with_tree
    from octo.faces.tool_docs import readme_with_languages
    from octo.faces.tool_docs import render_tools_markdown

    if output == "-":
        sys.stdout.write(render_tools_markdown())
        return EXIT_OK
    targets: list[tuple[Path, str]]
    if output is not None:
        targets = [(Path(output), render_tools_markdown())]
    else:
        root = checkout_root()
        if root is None:
            print(
                "octo docs: octo is installed here, not a checkout: it writes a checkout's "
                "docs/tools.md; `octo docs --output PATH` writes the reference to PATH "
                "(- prints it)",
                file=sys.stderr,
            )
            return EXIT_BAD_CALL
        readme = root / "README.md"
        architecture = root / "docs" / "architecture.md"
        targets = [
            (root / "docs" / "tools.md", render_tools_markdown()),
            (readme, readme_with_languages(readme.read_text(encoding="utf-8"))),
            (
                architecture,
                architecture_with_tree(architecture.read_text(encoding="utf-8"), root / "octo"),
            ),
            (tools_snapshot.SNAPSHOT, render_snapshot()),
        ]
    for path, fresh in targets:
        if check:
            current = path.read_text(encoding="utf-8") if path.exists() else ""
            if current != fresh:
                print(f"octo: {path} is out of date; run `octo docs`", file=sys.stderr)
                return EXIT_ALL_FAILED
            print(f"{path} is up to date")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(fresh, encoding="utf-8")
            print(f"wrote {path}")
    return EXIT_OK


def _check_servers_file(config: Config) -> None:
    """Read the language servers file before serving: a bad entry stops start-up, naming
    its line, rather than failing each LSP query later."""
    from octo.lsp.servers.table.commands import server_table

    server_table(config.env)


def _lsp(config: Config, args: argparse.Namespace) -> int:
    """``octo lsp``: the configured servers; ``octo lsp check FILE``: one server tried."""
    from octo.lsp.servers.inventory import inventory
    from octo.lsp.servers.inventory import inventory_lines
    from octo.lsp.servers.table.commands import server_table

    table = server_table(config.env)  # a bad servers file stops here, naming its line
    if args.action is None:
        print("\n".join(inventory_lines(inventory(table, config.env))))
        return EXIT_OK
    if args.file is None:
        print("octo lsp check: which FILE? (octo lsp check FILE)", file=sys.stderr)
        return EXIT_BAD_CALL
    roots = [Path(r).resolve() for r in args.roots or config.roots]
    path = Path(args.file).resolve()
    return anyio.run(_lsp_check, config, path, roots or [path.parent])


async def _lsp_check(config: Config, path: Path, chosen: list[Path]) -> int:
    from octo.core.errors import OctoError
    from octo.faces.library import Gateway
    from octo.lsp.servers.inventory import check_lines
    from octo.lsp.servers.running.pool import LspPool

    root = next((r for r in chosen if path.is_relative_to(r)), None)
    if root is None:
        print(f"octo lsp check: {path} is not under an allowed root", file=sys.stderr)
        return EXIT_BAD_CALL
    async with Gateway(config, roots=chosen) as gateway:
        try:
            lines = await check_lines(gateway.runtime.backend(LspPool), path, root)
        except (OctoError, OSError) as exc:
            hints = exc.hints if isinstance(exc, OctoError) else []
            message = exc.message if isinstance(exc, OctoError) else str(exc)
            print("\n".join([f"octo lsp check: {message}", *hints]), file=sys.stderr)
            return EXIT_ALL_FAILED
    print("\n".join(lines))
    return EXIT_OK


def _missing_root(roots: list[str] | None, config: Config) -> str | None:
    """What is wrong with the first allowed root that is not a directory, if one is not:
    every query under it would fail, each saying only that its own path does not exist."""
    named = [(root, "--root") for root in roots or ()]
    named = named or [(str(root), "OCTO_ROOTS") for root in config.roots]
    for root, source in named:
        path = Path(root).expanduser()
        if not path.is_dir():
            state = "is not a directory" if path.exists() else "does not exist"
            return f"the allowed root {root} ({source}) {state}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``octo`` command; returns the exit code."""
    try:
        return _run(argv)
    except KeyboardInterrupt:
        # Ctrl+C is the user's choice, not a failure to explain: one line, the shell's 130.
        print("octo: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader left early (`octo call ... | head`): not a failure of the call. Point
        # stdout at /dev/null so the interpreter's final flush does not complain again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def _run(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    level = os.environ.get("OCTO_LOG_LEVEL", "WARNING").upper()
    if not isinstance(logging.getLevelName(level), int):
        print(
            f"octo: OCTO_LOG_LEVEL={level!r} is not a log level "
            "(DEBUG, INFO, WARNING, ERROR or CRITICAL)",
            file=sys.stderr,
        )
        return EXIT_BAD_CALL
    # stdout may be the MCP wire (octo serve): every log line goes to stderr.
    logging.basicConfig(
        stream=sys.stderr, level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if logging.getLogger().level > logging.DEBUG:
        # httpx logs each request's URL (a query's values) at INFO; the call line is enough.
        logging.getLogger("httpx").setLevel(logging.WARNING)
    if args.command == "docs":
        return _docs(args.output, args.check)
    try:
        # Read before anything runs, so a bad variable stops any command at once, with its name.
        config = Config.from_env()
        _check_hosts_file(config)
    except ConfigError as exc:
        print(f"octo: {exc}", file=sys.stderr)
        return EXIT_BAD_CALL
    if args.command == "tools":
        return _tools(args.name)
    if args.command == "hosts":
        return _hosts(config)
    if args.command == "serve":
        return _serve(config, args)
    missing = _missing_root(args.roots, config)
    if missing is not None:
        print(f"octo: {missing}", file=sys.stderr)
        return EXIT_BAD_CALL
    if args.command == "lsp":
        try:
            return _lsp(config, args)
        except ConfigError as exc:
            print(f"octo: {exc}", file=sys.stderr)
            return EXIT_BAD_CALL
    if args.command == "index":
        return _index(config, args)
    try:
        queries = _load_queries(args.queries)
    except (OSError, ValueError) as exc:
        print(f"octo: bad --query: {exc}", file=sys.stderr)
        return EXIT_BAD_CALL
    return anyio.run(_call, config, args.tool, queries, args.roots, args)
